import dataclasses, sys, tempfile, importlib.util, pathlib
sys.path.insert(0, ".")
import torch, torch.nn.functional as F
import tasks
from agent.plan import plan
from templates import get_template
from templates.gemm import DEFAULT
G = get_template("gemm")
found = plan(tasks.load(pathlib.Path("tasks/linear_bias_gelu.py")))
for cfg_name, cfg in (("default+tma", dataclasses.replace(DEFAULT, use_tma=True)),
                      ("128x128x32+tma", dataclasses.replace(DEFAULT, BLOCK_N=128, BLOCK_K=32, use_tma=True))):
    d = pathlib.Path(tempfile.mkdtemp()); f = d / "m.py"; f.write_text(G.render(cfg, **found.context))
    spec = importlib.util.spec_from_file_location("m", f); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    for (mm, k, n) in ((515, 1000, 3073), (1024, 512, 768)):
        for dtype in (torch.float32, torch.float16):
            torch.manual_seed(0)
            x = torch.randn(mm, k, device="cuda", dtype=dtype); w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
            b = torch.randn(n, device="cuda", dtype=dtype)
            path = m.tma_plan(x.unsqueeze(0), w.t().unsqueeze(0))
            try:
                got = m.launch_linear_bias_gelu(x, w, b).double()
                ref = F.gelu(F.linear(x.double(), w.double(), b.double()))
                err = ((got - ref).abs().max().item(), ((got - ref).norm() / ref.norm()).item())
            except Exception as e:
                err = f"{type(e).__name__}: {str(e)[:200]}"
            print(cfg_name, (mm, k, n), dtype, path, err, flush=True)

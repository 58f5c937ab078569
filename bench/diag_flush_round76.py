"""GPU round 76's diagnosis (printed, not recorded): eager softmax and row sums over rows of 1000
(8-131 MB), timed after a spin kernel (the L2 warm), a read flush and a write flush. Superseded by
bench/probe_l2_flush.py, which writes a JSON."""
import torch, sys
sys.path.insert(0, '.')
from verifier.timing import L2Flusher, bench
dev = torch.device("cuda")
fl = {"sleep": lambda: torch.cuda._sleep(150_000), "read": L2Flusher(dev, "read"), "write": L2Flusher(dev, "write")}
for rows in (4099, 8192, 16384, 32768, 65536):
    x = torch.randn(rows, 1000, device="cuda").to(torch.bfloat16)
    res = {}
    for name, f in fl.items():
        t = bench({"softmax": lambda: torch.softmax(x, -1), "sum": lambda: x.sum(-1)}, flusher=f)
        res[name] = {k: round(v.median_ms * 1e3, 1) for k, v in t.items()}
    print(rows, f"{x.numel()*2/1e6:.0f} MB", res, flush=True)

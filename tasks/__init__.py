"""PyTorch ops to optimize, in KernelBench format, and the loader that reads them."""

from tasks.loader import DTYPES, Task, TaskError, load, load_source

__all__ = ["DTYPES", "Task", "TaskError", "load", "load_source"]

"""Thread count of the PyTorch twins. torch.set_num_threads limits PyTorch's own pool, but
Debian's PyTorch calls OpenBLAS for matrix products, and OpenBLAS has its own pool that
it does not limit: with --threads 1, W3 at length 128 ran its products on both cores
(4.1 s of CPU in 3.1 s). Both pools are set here, so that both sides of a comparison
use the same number of threads."""
import ctypes


def set_threads(torch, threads):
    torch.set_num_threads(threads)
    ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(threads)

"""What the PyTorch twins share: their command line, their thread count, their timer."""
import argparse
import ctypes
import time


def arguments(**extra):
    """--threads N and --seed S, plus extra options given as name=default (the option --name, an
    underscore written as a hyphen); a tuple default (e.g. cell=("gru", "lstm", "rnn")) lists the
    allowed values, the first being the default; a default of False makes a flag."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    for name, default in extra.items():
        if isinstance(default, tuple):
            parser.add_argument("--" + name.replace("_", "-"), choices=default, default=default[0])
        elif default is False:
            parser.add_argument("--" + name.replace("_", "-"), action="store_true")
        else:
            parser.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return parser.parse_args()


def set_threads(torch, threads):
    """torch.set_num_threads limits PyTorch's own pool, but Debian's PyTorch calls OpenBLAS for
    matrix products, and OpenBLAS keeps its own pool, which it does not limit: with --threads 1,
    W3 at length 128 ran its products on both cores (4.1 s of CPU in 3.1 s), and W2 was twice
    as slow (its small products paid for thread hand-offs). Both pools are set here, so that
    both sides of a comparison use the same number of threads."""
    torch.set_num_threads(threads)
    ctypes.CDLL("libopenblas.so.0").openblas_set_num_threads(threads)


def median_us(step, iters, warmup):
    """Median microseconds per call of step() over `iters` calls after `warmup` calls."""
    for _ in range(warmup):
        step()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    return times[len(times) // 2]


def timed_step(loss_of, optimizer):
    """One training update (loss_of() builds the loss; backward; optimizer step): its
    milliseconds and its loss."""
    start = time.perf_counter()
    loss = loss_of()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return (time.perf_counter() - start) * 1e3, loss.item()

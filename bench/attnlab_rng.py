"""attnlab's random stream in Python: std::mt19937_64 as attnlab's Rng draws from it
(framework/core/include/attnlab/rng.hpp, src/core/rng.cpp), and the trainer's batch order
(framework/core/src/training/trainer.cpp: a Fisher-Yates shuffle each epoch with the stream
Rng(seed).derive("training")). bench/positional_twin.py --attnlab-order trains on these batches."""
MASK = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64, the engine of attnlab's Rng (framework/core/include/attnlab/rng.hpp)."""

    def __init__(self, seed):
        self.state = [seed & MASK]
        for i in range(1, 312):
            prev = self.state[-1]
            self.state.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & MASK)
        self.index = 312

    def twist(self):
        s = self.state
        for i in range(312):
            x = (s[i] & 0xFFFFFFFF80000000) | (s[(i + 1) % 312] & 0x7FFFFFFF)
            s[i] = s[(i + 156) % 312] ^ (x >> 1) ^ (0xB5026F5AA96619E9 if x & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index == 312:
            self.twist()
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & MASK


def derived_seed(seed, name):
    """The seed of Rng(seed).derive(name): FNV-1a over the name, then two steps of splitmix64's finaliser."""
    h = 1469598103934665603 ^ seed
    for c in name.encode():
        h = ((h ^ c) * 1099511628211) & MASK
    h ^= h >> 31
    h = (h * 0xbf58476d1ce4e5b9) & MASK
    h ^= h >> 27
    return h


def orders(seed, n, epochs):
    """The order of the n training examples in each epoch of a run with this seed (engine() % i)."""
    engine = MT19937_64(derived_seed(seed, "training"))
    for _ in range(epochs):
        order = list(range(n))
        for i in range(n, 1, -1):
            j = engine() % i
            order[i - 1], order[j] = order[j], order[i - 1]
        yield order

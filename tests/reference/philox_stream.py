"""Philox4x32-10 and the word stream of SPEC.md sections 1-3 and 7, in pure Python.

Independent of randtensor: written from SPEC.md (and Random123's algorithm), shares
no code with the library. Slow but plain; meant for tests of thousands of values.

A state is a list of six uint32 words: counter words 0-3 (word 0 least
significant) and key words k0, k1 (SPEC.md section 2).
"""

MASK32 = 0xFFFFFFFF
MASK128 = (1 << 128) - 1
PHILOX_M0, PHILOX_M1 = 0xD2511F53, 0xCD9E8D57
PHILOX_W0, PHILOX_W1 = 0x9E3779B9, 0xBB67AE85


def philox4x32_10(counter, key):
    """One Philox4x32-10 block: counter (x0..x3), key (k0, k1) -> 4 words."""
    x0, x1, x2, x3 = [int(w) & MASK32 for w in counter]
    k0, k1 = [int(w) & MASK32 for w in key]
    m0, m1, w0, w1, mask = PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, MASK32  # locals: faster lookups
    for _ in range(10):
        p0 = m0 * x0
        p1 = m1 * x2
        x0, x1, x2, x3 = ((p1 >> 32) ^ x1 ^ k0, p1 & mask, (p0 >> 32) ^ x3 ^ k1, p0 & mask)
        k0 = (k0 + w0) & mask
        k1 = (k1 + w1) & mask
    return [x0, x1, x2, x3]


def counter_of(state):
    """The 128-bit counter C of a six-word state."""
    c0, c1, c2, c3 = state[0], state[1], state[2], state[3]
    return (int(c0) & MASK32) | (int(c1) & MASK32) << 32 | (int(c2) & MASK32) << 64 | (int(c3) & MASK32) << 96


def make_state(counter, key):
    """Six words from a counter (taken mod 2^128) and a key (k0, k1)."""
    counter &= MASK128
    return [(counter >> (32 * i)) & MASK32 for i in range(4)] + [int(key[0]) & MASK32, int(key[1]) & MASK32]


def advance(state, blocks):
    """The state whose counter is C + blocks (mod 2^128, full carry), key unchanged."""
    return make_state(counter_of(state) + blocks, state[4:6])


def block(state, j):
    """Block j of the stream: Philox4x32-10((C + j) mod 2^128, key)."""
    c = (counter_of(state) + j) & MASK128
    return philox4x32_10((c & MASK32, c >> 32 & MASK32, c >> 64 & MASK32, c >> 96), state[4:6])


def stream_words(state, start, count):
    """W[start .. start + count - 1] of SPEC.md section 8: W[j] = word j mod 4 of block j // 4."""
    out = []
    j = start
    end = start + count
    while j < end:
        b = block(state, j // 4)
        take = min(4 - j % 4, end - j)
        out.extend(b[j % 4:j % 4 + take])
        j += take
    return out


def word(state, j):
    return block(state, j // 4)[j % 4]


def bits_fill(state, n):
    """SPEC.md section 3 for N = n: (values, output state C + ceil(n / 4))."""
    return stream_words(state, 0, n), advance(state, (n + 3) // 4)


def curand_init_position(seed, subsequence, offset):
    """curand_init(seed, subsequence, offset) for Philox4_32_10 (SPEC.md section 7):
    (state, skip): the state words (offset/4 lo, offset/4 hi, subsequence lo, subsequence hi,
    seed lo, seed hi) and the number of elements (offset mod 4) to skip."""
    seed &= (1 << 64) - 1
    subsequence &= (1 << 64) - 1
    offset &= (1 << 64) - 1
    q = offset // 4
    state = [q & MASK32, q >> 32, subsequence & MASK32, subsequence >> 32, seed & MASK32, seed >> 32]
    return state, offset % 4


def curand_init_state(seed, subsequence, offset):
    """The state for curand_init(seed, subsequence, offset) with offset a multiple of 4."""
    state, skip = curand_init_position(seed, subsequence, offset)
    if skip:
        raise ValueError(f"offset {offset} is not a multiple of 4")
    return state


def std_philox4x32_state(v=20111115):
    """C++26 std::philox4x32(v): counter 0, key (v mod 2^32, 0) (SPEC.md section 7)."""
    return [0, 0, 0, 0, v & MASK32, 0]

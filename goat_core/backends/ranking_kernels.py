"""The evaluation's compiled loops (numba): ranking's hard negatives, the K of highest resource allocation
among a positive's 2-hop candidates, and its random ones, the first K distinct allowed draws, stopping at
the K-th; the heuristics' common neighbors. An edge is checked by binary search in its CSR row."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(inline="always")
def _is_edge(indptr, indices, u, v):
    """Whether v is among u's neighbors in a CSR adjacency with sorted rows."""
    lo, hi = indptr[u], indptr[u + 1]
    while lo < hi:
        mid = (lo + hi) >> 1
        if indices[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo < indptr[u + 1] and indices[lo] == v


@nb.njit(inline="always")
def _tie_noise(salt, code):
    """A uniform 64-bit key per (row salt, candidate) that breaks ties (splitmix64's finaliser)."""
    x = salt ^ (np.uint64(code) * np.uint64(0x9E3779B97F4A7C15))
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit
def _kth_smallest(values, k):
    """The k-th smallest of ``values`` (1 <= k <= len), by quickselect on a copy: O(len) on average, and
    quick to compile (``np.partition`` took numba 6 s)."""
    v = values.copy()
    lo, hi, want = 0, len(v) - 1, k - 1
    while lo < hi:
        pivot = v[(lo + hi) >> 1]
        i, j = lo, hi
        while i <= j:  # Hoare's partition: v[lo..j] <= pivot <= v[i..hi]
            while v[i] < pivot:
                i += 1
            while v[j] > pivot:
                j -= 1
            if i <= j:
                v[i], v[j] = v[j], v[i]
                i, j = i + 1, j - 1
        if want <= j:
            hi = j
        elif want >= i:
            lo = i
        else:
            break
    return v[want]


@nb.njit(nogil=True, cache=True)
def top_resource_allocation(pos, indptr, indices, share, full_indptr, full_indices, n, k, salt, negatives,
                            filled):
    """Per positive (a, b) = ``pos[r]``, its at most ``k`` allowed candidates ((a, w): code w; (w, b): code
    n + w) of highest resource allocation RA = Σ share[z] over the training graph's common neighbors z
    (``share`` = 1 / degree), ties by ``salt[r]``, into ``negatives[r]``; ``filled[r]`` how many: only the
    2-hop candidates have RA > 0, so the work is Σ degree over the ends' neighbors, not n."""
    heat = np.zeros(2 * n)
    touched = np.empty(2 * n, np.int64)
    barred = np.full(2 * n, -1, np.int64)  # r where the candidate is barred for positive r
    for r in range(pos.shape[0]):
        a, b = pos[r, 0], pos[r, 1]
        t = 0
        for side in range(2):
            end = a if side == 0 else b
            for w in full_indices[full_indptr[end]:full_indptr[end + 1]]:
                barred[w + side * n] = r
            for w in (a, b):
                barred[w + side * n] = r
            for i in range(indptr[end], indptr[end + 1]):
                z = indices[i]
                for j in range(indptr[z], indptr[z + 1]):
                    code = indices[j] + side * n
                    if heat[code] == 0.0:
                        touched[t] = code
                        t += 1
                    heat[code] += share[z]
        codes = np.empty(t, np.int64)
        m = 0
        for i in range(t):
            code = touched[i]
            if barred[code] != r:
                codes[m] = code
                m += 1
        codes = codes[:m]
        h = -heat[codes]  # ascending: the K smallest of (-RA, then noise) are the hardest
        noise = np.empty(m, np.uint64)
        for i in range(m):
            noise[i] = _tie_noise(salt[r], codes[i])
        if m > k:  # in O(m) by selection: sorting every 2-hop candidate dominated
            cut = _kth_smallest(h, k)
            ties = h == cut
            last = _kth_smallest(noise[ties], k - np.sum(h < cut))
            codes = codes[(h < cut) | (ties & (noise <= last))][:k]
        for c in range(len(codes)):
            code = codes[c]
            negatives[r, c, 0], negatives[r, c, 1] = (a, code) if code < n else (code - n, b)
        filled[r] = len(codes)
        for i in range(t):
            heat[touched[i]] = 0.0


@nb.njit(nogil=True, cache=True)
def first_allowed_draws(code, rows, pos, indptr, indices, n, k, negatives, valid, filled, short):
    """Per positive (a, b) = ``pos[r]``, r = ``rows[i]``, after its ``filled[r]`` negatives, the first
    distinct draws ``code[i]`` ((a, code) below n, else (code - n, b)) touching neither end, no edge and
    none of those, up to ``k`` in ``negatives[r]``; ``short[r]`` if fewer."""
    seen = np.full(2 * n, -1, np.int64)
    for i in range(code.shape[0]):
        r = rows[i]
        a, b = pos[r, 0], pos[r, 1]
        kept = filled[r]
        for c in range(kept):  # the hard negatives already chosen are not drawn again
            u, v = negatives[r, c, 0], negatives[r, c, 1]
            seen[v if u == a else n + u] = r
        for c in range(code.shape[1]):
            if kept == k:
                break
            x = code[i, c]
            if seen[x] == r:  # a later copy of a draw
                continue
            seen[x] = r
            if x < n:
                w, u, v = x, a, x
            else:
                w, u, v = x - n, x - n, b
            if w == a or w == b or _is_edge(indptr, indices, u, v):
                continue
            negatives[r, kept, 0] = u
            negatives[r, kept, 1] = v
            kept += 1
        if kept < k:
            short[r] = True
            for c in range(kept):
                negatives[r, c, 0] = -1
                negatives[r, c, 1] = -1
        else:
            for c in range(k):
                valid[r, c] = True


@nb.njit(nogil=True, cache=True)
def common_neighbor_sums(pairs, indptr, indices, inv_log, common, adamic):
    """Per pair (s, t), its common neighbors z in a CSR adjacency with sorted rows: how many into
    ``common[p]``, Σ ``inv_log[z]`` into ``adamic[p]`` (summed in z's order);
    the shorter row's ids are looked up in the longer one, O(min degree · log max degree) a pair."""
    for p in range(pairs.shape[0]):
        s, t = pairs[p, 0], pairs[p, 1]
        if indptr[s + 1] - indptr[s] > indptr[t + 1] - indptr[t]:
            s, t = t, s
        count, total = 0.0, 0.0
        for i in range(indptr[s], indptr[s + 1]):
            if _is_edge(indptr, indices, t, indices[i]):
                count += 1.0
                total += inv_log[indices[i]]
        common[p], adamic[p] = count, total

// Package spatial is a k-d tree over a fixed set of points in any
// dimension, for the radius queries of the Lipschitz safe sets, expanders
// and ε-reachable sets (SPEC §1, §5; issue 13): only pairs within
// (ℓ − h)/L of each other can certify anything, so a policy or analysis
// asks for the points within a radius instead of comparing all N² pairs.
//
// A query returns exactly the points p with vec.SqDist(q, p) ≤ r2 as that
// function rounds it: the leaves test each point with vec.SqDist itself,
// and a node is pruned only when a lower bound of the distance, shrunk by
// far more than its rounding error, exceeds r2. Callers that evaluate
// their own test on the candidates therefore get the same booleans as a
// scan over all points, bit for bit. The tree is built once (O(N log N))
// and queries write into the caller's buffer without allocating.
package spatial

// Package lqt is the logical-query-tree planner (planner.mode lqt), after
// PlanRAG: atomic queries first, then their pairwise relations, then a
// tree chosen by a Selinger-style dynamic programme over subsets, which
// becomes the engine's plan and runs bottom-up, independent nodes in
// parallel.
//
// # Steps
//
//  1. The model lists the question's atomic queries (prompt lqt_atoms),
//     each one hop or one operation, "#k" naming the result of query k.
//
//  2. Relation preprocessing asks, once per pair, whether the two queries
//     are unrelated, siblings (one later query uses both) or parent and
//     child (the parent uses the child's result) (prompt lqt_relation).
//     A pair found unrelated is remembered in a cache shared across
//     questions, keyed by the two queries' normalised texts with their
//     "#k" references spelled out (so "the capital of #1" in two
//     questions is two keys), and is never asked again.
//
//  3. The tree is chosen over those labels by minimising
//
//     cost(T) = -(|V| + |E| - Depth - Balance + alpha*Sim)
//
//     where |V| is the number of queries in T, |E| its parent-child edges,
//     Depth the height of T (edges on its longest root-to-leaf path),
//     Balance the sum over the nodes with children of the height of the
//     tallest child subtree minus that of the shortest (0 for a perfectly
//     balanced tree), and Sim how alike the tree's text is to the
//     question, weighted by alpha (planner.lqt.alpha, default 10). The
//     text of a tree is its root's query with each "#k" naming one of its
//     children replaced by that child subtree's text in brackets ("the
//     capital of [the country containing [Obama's birthplace]]"), so two
//     trees over the same queries read differently; a reference to a
//     query that is not a child stays as written. Sim is the lexical
//     cosine of that text with the question (word counts, stopwords and
//     references left out), computed for every (subset, root) entry of
//     the dynamic programme as subtrees merge. An embeddings endpoint is
//     not called per entry: with one configured the programme still uses
//     lexical cosine and the trace says so. A forest's Sim is the sum of
//     its trees'. Over all n queries |V| and |E| are fixed by how
//     many trees there are, so the choice among single trees is made by
//     shallowness (parallel depth), balance and similarity. A single tree
//     over all queries is always preferred: hanging a leaf under the
//     deepest node adds one edge and one level, which the cost alone
//     leaves even. When the labels connect no single tree, the forest
//     with the fewest trees is taken, the cheapest among them (a forest's
//     cost is the sum of its trees' costs, Depth the sum of their
//     heights), and the plan answers with the root of the largest tree.
//
// Context-aware merging: a subtree joins a node only across a related
// pair. Its root must be labelled the node's child, and it must be
// labelled a sibling of every child the node already has; unrelated
// queries never merge. Cycle prevention: a node never becomes its own
// ancestor. In the dynamic programme the two parts of a merge cover
// disjoint sets of queries, so a cycle cannot form even when the model's
// labels contain one (A uses B uses C uses A); the greedy merge attaches
// only a tree's root, and only to a node of another tree.
//
// With planner.lqt.context_merge (off by default: it costs one call per
// edge) each merge of the chosen tree is also a model judgement (prompt
// lqt_merge) with the partial tree as context: the composed text of the
// parent's subtree without that child, and the child's subtree. A
// rejected merge makes the pair unrelated and the tree is chosen again,
// until every edge is confirmed; the trace counts the judgements and the
// rejections. The pair labels are asked without context, so this is where
// a label that conflicts with the rest (the country's capital hung under
// the birthplace it never names) is caught.
//
// # The dynamic programme
//
// For every subset S of queries and root r in S, best(S, r) is the
// cheapest tree over exactly S rooted at r. A tree with children is built
// by attaching one child subtree (C, c) to the tree (S\C, r): the child
// subtree taken is the one holding the lowest query of S\{r}, so each tree
// is built in one way. A forest over S takes the tree holding S's
// lowest query and the best forest over the rest. Like Selinger's
// optimiser it keeps one best partial tree per (subset, root); Depth and
// Balance are not additive over merges, so where a costlier partial tree
// would have merged into a cheaper whole the result can miss the optimum
// (the tests compare it with exhaustive enumeration); since the siblings
// rule reads the kept tree's children, it can even miss a merge the labels
// allow, so the greedy merge also runs and its tree is taken when it has
// fewer trees or costs less (method "dp+greedy"). Time is
// O(3^n * n^2) and memory O(2^n * n): it runs up to planner.lqt.max_exact
// queries (default 12); above that a greedy merge attaches, one root at a
// time, the subtree whose attachment leaves the cheapest forest, and the
// trace says so.
package lqt

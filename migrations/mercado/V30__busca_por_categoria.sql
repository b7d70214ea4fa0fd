-- Girô (issue 40): a search word that names a category (issue 39: "bebida", "refrigerante") also
-- matches that category's products (crates/giro-servicos/src/mercado/produto.rs, "Categories").
-- With few matches the search intersects its words in V29's trigram index; the category's side
-- of that OR had no index, so a category word alone read the whole catalogue (80–110 ms for a
-- rare category on 100 000 products, docs/benchmarks.md). With this one the planner ORs the two
-- (2–5 ms). The category changes only when the product is (re)classified or edited.
CREATE INDEX ix_produto_vitrine_categoria ON produto_vitrine (lower(categoria)) WHERE listado;

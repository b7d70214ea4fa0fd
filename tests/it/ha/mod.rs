//! Topologies: a database failover under load ([`failover`]), the same on Patroni with no person
//! involved ([`patroni`]), the market through PgBouncer in transaction mode ([`pgbouncer`]),
//! stateless replicas behind a real HAProxy ([`replicas`]), and readiness
//! on a database whose connection slots or disk run out ([`prontidao`]), reads served by a
//! standby within a lag bound ([`leitura`]), a request re-run when its session was lost before
//! COMMIT ([`reexecucao`]), and a rolling restart of every replica under load ([`rolagem`]).

mod failover;
mod leitura;
mod patroni;
mod pgbouncer;
mod prontidao;
mod reexecucao;
mod replicas;
mod rolagem;

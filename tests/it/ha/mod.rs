//! Topologies: a database failover under load ([`failover`]), the same on Patroni with no person
//! involved ([`patroni`]), the market through PgBouncer in transaction mode ([`pgbouncer`]), stateless replicas behind a real HAProxy ([`replicas`]), and readiness
//! on a database whose connection slots or disk run out ([`prontidao`]).

mod failover;
mod patroni;
mod pgbouncer;
mod prontidao;
mod replicas;

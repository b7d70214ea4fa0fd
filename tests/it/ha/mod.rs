//! Topologies: a database failover under load ([`failover`]), the same on Patroni with no person
//! involved ([`patroni`]) and stateless replicas behind a real HAProxy ([`replicas`]).

mod failover;
mod patroni;
mod replicas;

//! Topologies: a database failover under load ([`failover`]) and stateless replicas behind a real
//! HAProxy ([`replicas`]).

mod failover;
mod replicas;

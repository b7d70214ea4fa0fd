//! A TCP proxy in front of PostgreSQL that a test can cut and restore, so one service sees its
//! database go away while the other tests keep theirs (crates.io's chaos proxy).

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct ChaosProxy {
    pub addr: SocketAddr,
    broken: watch::Sender<bool>,
}

impl ChaosProxy {
    pub async fn start(target: SocketAddr) -> Arc<ChaosProxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let (broken, _) = watch::channel(false);
        let proxy = Arc::new(ChaosProxy { addr, broken });
        let p = proxy.clone();
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                if *p.broken.borrow() {
                    drop(client);
                    continue;
                }
                let mut rx = p.broken.subscribe();
                tokio::spawn(async move {
                    let Ok(server) = TcpStream::connect(target).await else { return };
                    let (mut a, mut b) = (client, server);
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut a, &mut b) => {}
                        _ = rx.wait_for(|broken| *broken) => {}
                    }
                });
            }
        });
        proxy
    }

    /// Closes every proxied connection and refuses new ones.
    pub fn cut(&self) {
        self.broken.send_replace(true);
    }

    pub fn restore(&self) {
        self.broken.send_replace(false);
    }
}

/// A proxy in front of `db`'s cluster and the URL of `db` through it.
pub async fn in_front_of(db: &super::TestDb) -> (Arc<ChaosProxy>, String) {
    let host = match db.pg.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "127.0.0.1".to_string(),
    };
    let port = db.pg.get_ports().first().copied().unwrap_or(5432);
    let target = tokio::net::lookup_host((host.as_str(), port))
        .await
        .expect("resolve the cluster")
        .next()
        .expect("an address");
    let proxy = ChaosProxy::start(target).await;
    let url = db.url().replace(&format!(":{port}/"), &format!(":{}/", proxy.addr.port()));
    (proxy, url)
}

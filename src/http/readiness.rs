//! What `/readyz` answers: the broker and the roles' partitions.

use super::*;

/// What `/readyz` reports: whether a broker answers and every role this process runs has
/// partitions assigned, read from the roles' consumers (see [`ConsumerHealth`]).
#[derive(Debug, Default)]
pub struct Readiness {
    /// Whether the broker answered at start-up; consumers' own reports take over once watched.
    broker_reachable: AtomicBool,
    roles: Mutex<BTreeMap<String, RoleHealth>>,
}

#[derive(Debug, Clone)]
enum RoleHealth {
    /// Set by hand (tests, roles without a consumer).
    Flag(bool),
    /// Read from the role's consumer.
    Consumer(Arc<ConsumerHealth>),
}

impl RoleHealth {
    fn assigned(&self) -> bool {
        match self {
            RoleHealth::Flag(assigned) => *assigned,
            RoleHealth::Consumer(health) => health.assigned_partitions() > 0,
        }
    }
}

impl Readiness {
    /// Expects `role` to report partitions before the process is ready.
    pub fn expect_role(&self, role: &str) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles
            .entry(role.to_owned())
            .or_insert(RoleHealth::Flag(false));
    }

    pub fn set_broker_reachable(&self, reachable: bool) {
        self.broker_reachable.store(reachable, Ordering::Relaxed);
    }

    /// Whether `role` has partitions assigned, set by hand.
    pub fn set_assigned(&self, role: &str, assigned: bool) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles.insert(role.to_owned(), RoleHealth::Flag(assigned));
    }

    /// Reads `role`'s readiness from its consumer from now on.
    pub fn watch(&self, role: &str, health: Arc<ConsumerHealth>) {
        let mut roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        roles.insert(role.to_owned(), RoleHealth::Consumer(health));
    }

    /// `Ok` when ready, else what is missing.
    pub fn check(&self) -> Result<(), Vec<String>> {
        let mut missing = Vec::new();
        let roles = self.roles.lock().unwrap_or_else(|p| p.into_inner());
        let watched: Vec<&Arc<ConsumerHealth>> = roles
            .values()
            .filter_map(|r| match r {
                RoleHealth::Consumer(h) => Some(h),
                RoleHealth::Flag(_) => None,
            })
            .collect();
        let broker = if watched.is_empty() {
            self.broker_reachable.load(Ordering::Relaxed)
        } else {
            watched.iter().any(|h| h.broker_reachable())
        };
        if !broker {
            missing.push("broker not reachable".to_owned());
        }
        for (role, health) in roles.iter() {
            if !health.assigned() {
                missing.push(format!("{role}: no partitions assigned"));
            }
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(missing)
        }
    }
}

//! Admission of LTI login initiations (`/lti/login`), which anyone can send without credentials:
//! each keeps a `state` in the store until its launch or [`LTI_STATE_TTL_MS`], so a flood of them
//! must neither fill the store nor lock real students out.
//!
//! This node keeps a ledger of the logins it started that wait for their launch, bounded twice:
//! - **per client address** (an IPv4 address, an IPv6 /64): a client holding
//!   `lti_logins_per_address` pending logins is refused (429 with `Retry-After`) before anything
//!   else is done: no store read or write, no random numbers. One address cannot flood.
//! - **per platform**: a platform holding `lti_logins_per_platform` pending logins takes a new one
//!   only from an address that holds fewer of them than its heaviest address holds, less one (an
//!   address holding none always qualifies), and gives up the heaviest address's oldest login for
//!   it (its `state` is deleted in the same store transaction); any other is refused (429), as
//!   cheaply: after one store read (the registrations), before any write or random number. So a
//!   flood from a few addresses is refused at its fair share, a student's login displaces the
//!   flood's, a student's pending login is given up only when every address holds one, and another
//!   platform's logins are never touched.
//!
//! A login leaves the ledger when its launch takes the state here, or when it expires. With
//! several nodes, a login whose launch reaches another node counts here until it expires.
//!
//! The client address is the connection's peer, or, when the peer is one of the `trusted_proxy`
//! networks, the last address in `X-Forwarded-For` that is not.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::limits::{LTI_LOGINS_PER_ADDRESS_MAX, LTI_LOGINS_PER_PLATFORM_MAX, LTI_STATE_TTL_MS};
use crate::service::address::AddressKey;

/// Refused logins are logged at most once per this interval, in ms (all are counted in
/// `/metrics`).
pub(crate) const REFUSALS_LOG_MS: i64 = 60_000;

/// Which bound refused a login.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The address holds `lti_logins_per_address` pending logins.
    Address,
    /// The platform holds `lti_logins_per_platform`, and the address its share of them.
    Platform,
}

/// Why a login is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refused {
    pub bound: Bound,
    pub address: AddressKey,
    /// The logins that wait for their launch: of the address ([`Bound::Address`]), or of the
    /// platform ([`Bound::Platform`]).
    pub pending: usize,
    /// When the address's oldest (of the platform's) logins expires.
    pub retry_after: Duration,
}

/// What [`Logins::admit`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Admitted {
    /// The `state` of the login given up for this one (the platform was at its bound).
    pub evicted: Option<String>,
}

struct Pending {
    state: String,
    platform: i64,
    address: AddressKey,
    expires: Instant,
}

/// The pending logins, by admission order (which is expiry order: they all live as long).
#[derive(Default)]
struct Ledger {
    next: u64,
    by_order: BTreeMap<u64, Pending>,
    by_state: HashMap<String, u64>,
    per_address: HashMap<AddressKey, usize>,
    /// Per platform: its pending logins by address, oldest first, and their number.
    per_platform: HashMap<i64, (usize, HashMap<AddressKey, VecDeque<u64>>)>,
}

impl Ledger {
    fn expire(&mut self, now: Instant) {
        while let Some((&order, pending)) = self.by_order.first_key_value() {
            if pending.expires > now {
                break;
            }
            self.remove(order);
        }
    }

    fn remove(&mut self, order: u64) -> Option<Pending> {
        let pending = self.by_order.remove(&order)?;
        self.by_state.remove(&pending.state);
        if let Some(count) = self.per_address.get_mut(&pending.address) {
            *count -= 1;
            if *count == 0 {
                self.per_address.remove(&pending.address);
            }
        }
        if let Some((count, addresses)) = self.per_platform.get_mut(&pending.platform) {
            *count -= 1;
            if let Some(queue) = addresses.get_mut(&pending.address) {
                queue.retain(|o| *o != order);
                if queue.is_empty() {
                    addresses.remove(&pending.address);
                }
            }
            if *count == 0 {
                self.per_platform.remove(&pending.platform);
            }
        }
        Some(pending)
    }

    /// Refused when `address` holds `most` pending logins.
    fn check_address(&self, address: AddressKey, most: usize, now: Instant) -> Result<(), Refused> {
        let pending = self.per_address.get(&address).copied().unwrap_or(0);
        if pending < most {
            return Ok(());
        }
        let oldest = self
            .per_platform
            .values()
            .filter_map(|(_, addresses)| addresses.get(&address)?.front())
            .min()
            .copied();
        Err(self.refused(Bound::Address, address, pending, oldest, now))
    }

    /// At the platform's bound `most`: the login to give up for one from `address`, or the
    /// refusal when `address` holds its share already. `Ok(None)`: the platform has room.
    fn check_platform(
        &self,
        platform: i64,
        address: AddressKey,
        most: usize,
        now: Instant,
    ) -> Result<Option<u64>, Refused> {
        let Some((count, addresses)) = self.per_platform.get(&platform) else { return Ok(None) };
        if *count < most {
            return Ok(None);
        }
        // The oldest login of the address holding the most (the oldest such address on a tie).
        let heaviest = addresses
            .values()
            .filter_map(|queue| Some((queue.len(), *queue.front()?)))
            .max_by(|(len_a, first_a), (len_b, first_b)| len_a.cmp(len_b).then(first_b.cmp(first_a)));
        let own = addresses.get(&address);
        let held = own.map_or(0, VecDeque::len);
        match heaviest {
            Some((most_held, victim)) if held == 0 || held + 1 < most_held => Ok(Some(victim)),
            _ => {
                Err(self.refused(Bound::Platform, address, *count, own.and_then(|q| q.front()).copied(), now))
            }
        }
    }

    fn refused(
        &self,
        bound: Bound,
        address: AddressKey,
        pending: usize,
        oldest: Option<u64>,
        now: Instant,
    ) -> Refused {
        let expires = oldest.and_then(|order| self.by_order.get(&order)).map_or(now, |p| p.expires);
        Refused { bound, address, pending, retry_after: expires.saturating_duration_since(now) }
    }
}

/// The ledger of this node's pending logins, with its two bounds.
pub(crate) struct Logins {
    ledger: Mutex<Ledger>,
    per_platform: usize,
    per_address: usize,
    ttl: Duration,
    /// Refusals since the last log line, and when that was written (ms since the epoch).
    refusals: Mutex<(u64, i64)>,
}

impl Default for Logins {
    fn default() -> Logins {
        Logins::new(LTI_LOGINS_PER_PLATFORM_MAX, LTI_LOGINS_PER_ADDRESS_MAX)
    }
}

impl Logins {
    /// `per_platform` and `per_address` at least 1.
    pub(crate) fn new(per_platform: usize, per_address: usize) -> Logins {
        Logins {
            ledger: Mutex::default(),
            per_platform: per_platform.max(1),
            per_address: per_address.max(1),
            ttl: Duration::from_millis(LTI_STATE_TTL_MS),
            refusals: Mutex::new((0, i64::MIN)),
        }
    }

    /// Counts a refusal; the number of refusals to log (this one included) when the last line
    /// was written at least `every_ms` before `now_ms`, none otherwise.
    pub(crate) fn refusals_to_log(&self, now_ms: i64, every_ms: i64) -> Option<u64> {
        let mut refusals = self.refusals.lock().unwrap_or_else(|p| p.into_inner());
        refusals.0 += 1;
        if now_ms.saturating_sub(refusals.1) < every_ms {
            return None;
        }
        let count = refusals.0;
        *refusals = (0, now_ms);
        Some(count)
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.ledger.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether `address` may start a login now (of `platform`, when it is known); changes
    /// nothing but expiry.
    pub(crate) fn check(
        &self,
        platform: Option<i64>,
        address: AddressKey,
        now: Instant,
    ) -> Result<(), Refused> {
        let mut ledger = self.ledger();
        ledger.expire(now);
        ledger.check_address(address, self.per_address, now)?;
        match platform {
            Some(platform) => ledger.check_platform(platform, address, self.per_platform, now).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Takes the login `state` of `platform` from `address` (checked again: another request may
    /// have come first), giving up the platform's login named in [`Admitted`] when the platform is
    /// at its bound.
    pub(crate) fn admit(
        &self,
        platform: i64,
        address: AddressKey,
        state: &str,
        now: Instant,
    ) -> Result<Admitted, Refused> {
        let mut ledger = self.ledger();
        ledger.expire(now);
        ledger.check_address(address, self.per_address, now)?;
        let evicted = match ledger.check_platform(platform, address, self.per_platform, now)? {
            Some(order) => ledger.remove(order).map(|p| p.state),
            None => None,
        };
        let order = ledger.next;
        ledger.next += 1;
        ledger
            .by_order
            .insert(order, Pending { state: state.to_string(), platform, address, expires: now + self.ttl });
        ledger.by_state.insert(state.to_string(), order);
        *ledger.per_address.entry(address).or_default() += 1;
        let (count, addresses) = ledger.per_platform.entry(platform).or_default();
        *count += 1;
        addresses.entry(address).or_default().push_back(order);
        Ok(Admitted { evicted })
    }

    /// Forgets the login `state` (its launch took it, or it was never stored); unknown states are
    /// ignored.
    pub(crate) fn release(&self, state: &str) {
        let mut ledger = self.ledger();
        if let Some(order) = ledger.by_state.get(state).copied() {
            ledger.remove(order);
        }
    }

    /// Pending logins of `platform`, and of every platform.
    #[cfg(test)]
    pub(crate) fn pending(&self, platform: i64) -> (usize, usize) {
        let ledger = self.ledger();
        (ledger.per_platform.get(&platform).map_or(0, |(count, _)| *count), ledger.by_order.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(last: u8) -> AddressKey {
        AddressKey::V4([203, 0, 113, last])
    }

    #[test]
    fn an_address_at_its_bound_is_refused_until_its_oldest_login_expires_or_is_taken() {
        let logins = Logins::new(100, 3);
        let start = Instant::now();
        for i in 0..3 {
            let at = start + Duration::from_secs(i);
            assert_eq!(logins.admit(1, v4(1), &format!("s{i}"), at), Ok(Admitted { evicted: None }));
        }
        let now = start + Duration::from_secs(10);
        let refused = logins.check(None, v4(1), now).unwrap_err();
        assert_eq!(
            (refused.bound, refused.pending, refused.retry_after),
            (Bound::Address, 3, logins.ttl - Duration::from_secs(10))
        );
        assert_eq!(logins.admit(2, v4(1), "other-platform", now).unwrap_err().pending, 3, "per address");
        assert_eq!(logins.check(Some(1), v4(2), now), Ok(()), "another address");
        // A launch takes one: room for one more.
        logins.release("s1");
        logins.release("never-issued");
        assert!(logins.admit(1, v4(1), "s3", now).is_ok());
        assert!(logins.check(None, v4(1), now).is_err());
        // The oldest expires: room again.
        assert!(logins.check(None, v4(1), start + logins.ttl).is_ok());
        assert_eq!(logins.pending(1), (2, 2));
        assert_eq!(logins.pending(7), (0, 2));
    }

    #[test]
    fn a_full_platform_gives_up_the_heaviest_addresses_oldest_login_and_no_other_platforms() {
        let logins = Logins::new(5, 4);
        let now = Instant::now();
        for (i, address) in [1, 1, 1, 2, 3].into_iter().enumerate() {
            assert_eq!(logins.admit(1, v4(address), &format!("a{i}"), now).unwrap().evicted, None);
        }
        assert!(logins.admit(2, v4(1), "b0", now).unwrap().evicted.is_none(), "another platform");
        // Platform 1 is full: a student's login displaces the flooding address's oldest.
        assert_eq!(logins.admit(1, v4(9), "student", now).unwrap().evicted.as_deref(), Some("a0"));
        assert_eq!(logins.admit(1, v4(8), "student-2", now).unwrap().evicted.as_deref(), Some("a1"));
        // Now address 1 holds one login of platform 1, as do 2, 3, 9 and 8: an address that holds
        // one is refused (it has its share), a new address gives up the oldest.
        let refused = logins.admit(1, v4(2), "again", now).unwrap_err();
        assert_eq!((refused.bound, refused.pending), (Bound::Platform, 5));
        assert_eq!(logins.check(Some(1), v4(2), now).unwrap_err().bound, Bound::Platform);
        assert_eq!(logins.check(Some(2), v4(2), now), Ok(()), "another platform has room");
        assert_eq!(logins.admit(1, v4(7), "student-3", now).unwrap().evicted.as_deref(), Some("a2"));
        assert_eq!(logins.pending(1).0, 5);
        assert_eq!(logins.pending(2).0, 1, "platform 2 untouched");
        // An evicted state is forgotten: releasing it changes nothing.
        logins.release("a0");
        assert_eq!(logins.pending(1).0, 5);
    }

    #[test]
    fn a_flood_at_its_fair_share_is_refused_while_a_newcomer_gets_in() {
        let logins = Logins::new(6, 10);
        let now = Instant::now();
        let mut admitted = 0;
        // Three addresses flood one platform: each gets its share (two), then refusals only.
        for i in 0..300u32 {
            if logins.admit(1, v4((i % 3) as u8), &format!("f{i}"), now).is_ok() {
                admitted += 1;
            }
        }
        assert_eq!(admitted, 6, "no rotation through evictions");
        assert!(logins.admit(1, v4(9), "student", now).unwrap().evicted.is_some());
    }

    #[test]
    fn many_logins_from_many_addresses_stay_within_the_bounds() {
        let logins = Logins::new(50, 2);
        let now = Instant::now();
        let (mut admitted, mut refused) = (0, 0);
        for i in 0..50_000u32 {
            let address = AddressKey::V4((i % 997 + i % 7).to_be_bytes());
            match logins.admit(i64::from(i % 3), address, &i.to_string(), now) {
                Ok(_) => admitted += 1,
                Err(_) => refused += 1,
            }
        }
        // More addresses than places: newcomers keep displacing the oldest, within the bounds.
        assert!(admitted > 150, "{admitted} admitted, {refused} refused");
        assert_eq!(logins.pending(0), (50, 150), "three platforms, 50 each");
        let ledger = logins.ledger();
        assert!(ledger.per_address.values().all(|n| *n <= 2));
        assert_eq!(ledger.by_state.len(), 150, "nothing else kept");
    }
}

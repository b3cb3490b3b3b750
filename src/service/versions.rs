//! The exercise versions this node serves, beside those of the other nodes on a shared store.
//!
//! Each node reads exercise folders from its own `--exercises` directory, so two nodes may serve
//! different versions of one exercise for a while (a teacher's change reaching them one by one).
//! So that one exercise is never graded two ways: a submission's job records the version (the
//! folder's content hash) of the node that accepted it; every node announces the versions it
//! serves in the store ([`announce`], at start, after each reload and every
//! [`NODE_HEARTBEAT_MS`]); and a node leases only jobs of its own versions, or of versions that no
//! living node serves any more (those would otherwise wait forever: they are graded by the version
//! served now, and the result records which). `/readyz` says where this node differs ([`differences`]).

use std::collections::BTreeMap;

use super::catalogue::Catalogue;
use super::clock;
use super::shared::Shared;
use super::store::VersionCensus;
#[cfg(doc)]
use crate::limits::NODE_HEARTBEAT_MS;

/// The versions `catalogue` serves: (exercise slug, content hash), by slug.
pub(crate) fn served(catalogue: &Catalogue) -> Vec<(String, String)> {
    catalogue
        .all()
        .iter()
        .map(|(slug, exercise)| (slug.clone(), exercise.content_hash().to_string()))
        .collect()
}

/// Announces this node and the versions it serves now; a failure is logged (the next heartbeat
/// tries again) and returned.
pub(crate) fn announce(shared: &Shared) -> Result<(), super::store::StoreError> {
    let versions = served(&shared.catalogue);
    let announced = shared.store.announce_node(&versions, clock::now_ms());
    if let Err(e) = &announced {
        tracing::error!(event = "announce_failed", error = %e);
    }
    announced
}

/// The first 12 hex digits of a content hash, as reports and pages show versions.
pub(crate) fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// Where `node`, which serves `ours` (slug → content hash), differs from the other living nodes
/// and from the versions the open jobs were recorded under, one line each, for the operator.
/// Empty when every node serves the same versions and every open job is of one of them.
pub(crate) fn differences(
    node: &str,
    ours: &BTreeMap<String, String>,
    census: &VersionCensus,
) -> Vec<String> {
    let mut lines = Vec::new();
    for other in census.served.iter().filter(|s| s.node != node) {
        match ours.get(&other.exercise) {
            Some(hash) if *hash == other.content_hash => {}
            Some(hash) => lines.push(format!(
                "exercise {}: this node serves version {}, node {} serves version {}",
                other.exercise,
                short(hash),
                other.node,
                short(&other.content_hash)
            )),
            None => lines.push(format!(
                "exercise {}: not served by this node, node {} serves version {}",
                other.exercise,
                other.node,
                short(&other.content_hash)
            )),
        }
    }
    for recorded in &census.recorded {
        if ours.get(&recorded.exercise) == Some(&recorded.content_hash) {
            continue;
        }
        let servers: Vec<&str> = census
            .served
            .iter()
            .filter(|s| s.exercise == recorded.exercise && s.content_hash == recorded.content_hash)
            .map(|s| s.node.as_str())
            .collect();
        let jobs = match recorded.jobs {
            1 => "1 open job was".to_string(),
            n => format!("{n} open jobs were"),
        };
        lines.push(if servers.is_empty() {
            format!(
                "exercise {}: {jobs} accepted under version {}, which no living node serves: \
                 they are graded by the version a node serves now",
                recorded.exercise,
                short(&recorded.content_hash)
            )
        } else {
            format!(
                "exercise {}: {jobs} accepted under version {}, which this node leaves to node {}",
                recorded.exercise,
                short(&recorded.content_hash),
                servers.join(", node ")
            )
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::store::{RecordedJobs, ServedVersion};

    fn served(node: &str, exercise: &str, hash: &str) -> ServedVersion {
        ServedVersion { node: node.into(), exercise: exercise.into(), content_hash: hash.into() }
    }

    #[test]
    fn a_node_names_each_version_that_differs_and_the_jobs_it_leaves_to_others() {
        let a = "a".repeat(64);
        let b = "b".repeat(64);
        let ours = BTreeMap::from([("03-x".to_string(), a.clone()), ("04-y".to_string(), b.clone())]);
        let census = VersionCensus {
            served: vec![
                served("n1", "03-x", &a),
                served("n1", "04-y", &b),
                served("n2", "03-x", &b),
                served("n2", "04-y", &b),
                served("n2", "05-z", &a),
            ],
            recorded: vec![
                RecordedJobs { exercise: "03-x".into(), content_hash: a.clone(), jobs: 7 },
                RecordedJobs { exercise: "03-x".into(), content_hash: b.clone(), jobs: 3 },
                RecordedJobs { exercise: "04-y".into(), content_hash: a.clone(), jobs: 1 },
            ],
        };
        let lines = differences("n1", &ours, &census);
        assert_eq!(
            lines,
            vec![
                "exercise 03-x: this node serves version aaaaaaaaaaaa, node n2 serves version bbbbbbbbbbbb",
                "exercise 05-z: not served by this node, node n2 serves version aaaaaaaaaaaa",
                "exercise 03-x: 3 open jobs were accepted under version bbbbbbbbbbbb, which this node leaves to node n2",
                "exercise 04-y: 1 open job was accepted under version aaaaaaaaaaaa, which no living node serves: \
                 they are graded by the version a node serves now",
            ]
        );
        // The same versions everywhere: nothing to say.
        let same = VersionCensus {
            served: vec![served("n1", "03-x", &a), served("n2", "03-x", &a)],
            recorded: vec![RecordedJobs { exercise: "03-x".into(), content_hash: a.clone(), jobs: 2 }],
        };
        let ours = BTreeMap::from([("03-x".to_string(), a.clone())]);
        assert!(differences("n1", &ours, &same).is_empty());
    }
}

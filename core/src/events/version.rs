//! Schema versions. Each event names the version of the contract it follows in its
//! `schema_version` field; a breaking change to an event's shape gets a new version (and a new
//! schema file), so a consumer can tell at once whether it understands a message.

use serde::de::{self, Deserialize, Deserializer, Unexpected};
use serde::ser::{Serialize, Serializer};

/// `schema_version` of a draft event: `schemas/draft.v1.json`.
pub const DRAFT_V1: &str = "factgate.draft.v1";
/// `schema_version` of a verification request: `schemas/verify_request.v1.json`.
pub const VERIFY_REQUEST_V1: &str = "factgate.verify_request.v1";
/// `schema_version` of a claim result: `schemas/claim_result.v1.json`.
pub const CLAIM_RESULT_V1: &str = "factgate.claim_result.v1";
/// `schema_version` of an article manifest: `schemas/manifest.v1.json`.
pub const MANIFEST_V1: &str = "factgate.manifest.v1";
/// `schema_version` of a decision: `schemas/decision.v1.json`.
pub const DECISION_V1: &str = "factgate.decision.v1";
/// `schema_version` of an editor's override: `schemas/override.v1.json`.
pub const OVERRIDE_V1: &str = "factgate.override.v1";

/// Defines a zero-sized marker that serializes as one version string and refuses any other, so
/// the version is checked by the same deserializer that reads the rest of the event.
macro_rules! schema_version {
    ($(#[$doc:meta])* $name:ident = $value:path) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The version string this marker stands for.
            pub(crate) const VALUE: &'static str = $value;
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(Self::VALUE)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let found = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                if found == Self::VALUE {
                    Ok($name)
                } else {
                    Err(de::Error::invalid_value(Unexpected::Str(&found), &Self::VALUE))
                }
            }
        }
    };
}

schema_version!(
    /// The `schema_version` of a draft event, [`DRAFT_V1`].
    DraftV1 = DRAFT_V1
);
schema_version!(
    /// The `schema_version` of a verification request, [`VERIFY_REQUEST_V1`].
    VerifyRequestV1 = VERIFY_REQUEST_V1
);
schema_version!(
    /// The `schema_version` of a claim result, [`CLAIM_RESULT_V1`].
    ClaimResultV1 = CLAIM_RESULT_V1
);
schema_version!(
    /// The `schema_version` of an article manifest, [`MANIFEST_V1`].
    ManifestV1 = MANIFEST_V1
);
schema_version!(
    /// The `schema_version` of a decision, [`DECISION_V1`].
    DecisionV1 = DECISION_V1
);
schema_version!(
    /// The `schema_version` of an editor's override, [`OVERRIDE_V1`].
    OverrideV1 = OVERRIDE_V1
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_round_trips_its_own_version_and_refuses_others() {
        assert_eq!(
            serde_json::to_string(&DraftV1).unwrap(),
            "\"factgate.draft.v1\""
        );
        assert_eq!(
            serde_json::from_str::<DraftV1>("\"factgate.draft.v1\"").unwrap(),
            DraftV1
        );
        let err = serde_json::from_str::<DraftV1>("\"factgate.draft.v2\"").unwrap_err();
        assert!(err.to_string().contains("factgate.draft.v2"), "{err}");
        assert!(serde_json::from_str::<DecisionV1>("\"factgate.draft.v1\"").is_err());
    }
}

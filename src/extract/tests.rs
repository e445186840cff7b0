//! Extraction with a stand-in detector, so mapping, ids and locations are tested on their own.

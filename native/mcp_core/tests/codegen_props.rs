//! Property: every listing (built from arbitrary bytes, see
//! `codegen_support/arbitrary_listing.rs`) generates a module that parses as
//! Gleam with no error node and no attribute, keeps the sanitizer cage, and
//! is deterministic; or it is refused for the right reason. Run with the
//! production digest and with a weak one that makes names collide.

mod codegen_support;

use codegen_support::arbitrary_listing::listing_from_bytes;
use codegen_support::{check_generation, sha256_hex, weak_digest};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_listings_generate_valid_gleam_or_the_right_refusal(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let (server, tools) = listing_from_bytes(&data);
        check_generation(&server, &tools, sha256_hex);
        check_generation(&server, &tools, weak_digest);
    }
}

import Foundation

/// One row of a class table as stored: nothing in it is plaintext but the random UUID and the
/// protection-class index.
struct StoredRow: Sendable {
    var rowid: Int64
    var uuid: Data
    var accessibility: Accessibility
    /// Sealed attribute dictionary (per-class metadata key).
    var metadata: Data
    /// Per-row secret key, sealed with the class key.
    var rowKey: Data
    /// Sealed secret (per-row key), nil when the item has no data.
    var secret: Data?
    /// The lookup column of each attribute, in the schema's attribute order (an array, not a dictionary
    /// by code: listings decode thousands of rows).
    var lookups: [Data?]
}

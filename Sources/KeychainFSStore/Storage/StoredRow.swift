import KeychainFSModel
import Foundation

/// One row of a class table as stored: nothing in it is plaintext but the random UUID and the
/// protection-class index.
package struct StoredRow: Sendable {
    package var rowid: Int64
    package var uuid: Data
    package var accessibility: Accessibility
    /// Sealed attribute dictionary (per-class metadata key).
    package var metadata: Data
    /// Per-row secret key, sealed with the class key.
    package var rowKey: Data
    /// Sealed secret (per-row key), nil when the item has no data.
    package var secret: Data?
    /// The lookup column of each attribute, in the schema's attribute order (an array, not a dictionary
    /// by code: listings decode thousands of rows).
    package var lookups: [Data?]

    package init(
        rowid: Int64, uuid: Data, accessibility: Accessibility, metadata: Data, rowKey: Data, secret: Data?,
        lookups: [Data?]
    ) {
        self.rowid = rowid; self.uuid = uuid; self.accessibility = accessibility
        self.metadata = metadata; self.rowKey = rowKey; self.secret = secret; self.lookups = lookups
    }
}

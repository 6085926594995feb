import KeychainFSEngine
import KeychainFSModel

/// What templates and env files share: a size limit, checked before any parsing, so that a huge or
/// hostile file is refused at once with a clear error (docs/workflows.md).
package enum WorkflowText {
    /// The largest template or env file: 1 MiB.
    package static let maximumSize = 1 << 20

    /// Throws when `text` is over ``maximumSize``; `kind` names it ("template", "env file").
    static func checkSize(_ text: String, kind: String) throws(ReferenceSyntaxError) {
        let size = text.utf8.count
        guard size <= maximumSize else {
            throw ReferenceSyntaxError(
                String(text.prefix(40)) + "…",
                "the \(kind) is \(size) bytes, more than the limit of 1 MiB (\(maximumSize) bytes)")
        }
    }
}

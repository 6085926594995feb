import Foundation

/// `/etc/fuse.conf`, as fusermount3 reads it: `allow_root` and `allow_other` mounts by users other than
/// root need a line `user_allow_other` on its own.
enum FuseConfiguration {
    static let path = "/etc/fuse.conf"

    /// Whether the file has an uncommented `user_allow_other` line.
    static func allowsOther(path: String = path) -> Bool {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
        return text.split(whereSeparator: \.isNewline).contains {
            $0.trimmingCharacters(in: .whitespaces) == "user_allow_other"
        }
    }
}

import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences

/// The texts users hand to `run`, `inject` and the daemon (docs/spec.md §12, §13): `kc://` references, templates,
/// env files and `access.toml`. Bad text is a typed error naming its line, never a crash; rules that parse
/// render to text that parses to the same rules.
enum WorkflowTextTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        let text = String(decoding: data, as: UTF8.self)
        _ = try? SecretReference.parse(text)
        _ = try? Template.parse(text)
        _ = try? EnvironmentSpec.parseFile(text)
        if let rules = try? AccessPolicyFile.parse(text) {
            let rendered = AccessPolicyFile.render(rules)
            guard let again = try? AccessPolicyFile.parse(rendered), AccessPolicyFile.render(again) == rendered else {
                throw PropertyViolation("access.toml rules do not survive render and parse")
            }
        }
    }
}

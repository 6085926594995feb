import Foundation
import KeychainFSEngine
import KeychainFSModel

/// `git-credential-keychainfs get|store|erase`: git's osxkeychain helper on the keychain, making and
/// finding the same internet-password items (git's contrib/credential/osxkeychain).
package enum GitCredentialHelper {
    /// Runs `action` on git's input. Unknown actions are ignored, as osxkeychain does.
    package static func run(
        _ action: String, input: Data, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> HelperOutcome {
        var outcome = HelperOutcome()
        let credential: GitCredential
        do { credential = try GitCredential.parse(input) } catch {
            return HelperOutcome(stderr: "git-credential-keychainfs: \(error)\n", status: 1)
        }
        if credential.unsupportedProtocol { return outcome }  // other protocols are not kept: nothing to do
        do throws(KeychainError) {
            switch action {
            case "get": outcome.stdout = try get(credential, environment)
            case "store": outcome.stderr = try store(credential, environment)
            case "erase":
                guard credential.protocolCode != nil, credential.host != nil else {
                    return HelperOutcome(
                        stderr: "git-credential-keychainfs: erase needs a protocol and a host\n", status: 1)
                }
                try erase(credential, environment)
            default: break
            }
        } catch {
            // Nothing on stdout: git then falls back to its other helpers or its prompt.
            return HelperOutcome(
                stderr: "git-credential-keychainfs: cannot \(action): \(CredentialKeychain.explain(error))\n", status: 1
            )
        }
        return outcome
    }

    /// The first item matching what git gave: its secret (with expiry and refresh token lines) and,
    /// if git gave no username, the item's account. Nothing when none matches.
    static func get(_ credential: GitCredential, _ environment: [String: String]) throws(KeychainError) -> Data {
        var query = credential.query.dictionary
        query[QueryKey.matchLimit] = .string(QueryKey.matchLimitOne)
        query[QueryKey.returnAttributes] = .bool(true)
        query[QueryKey.returnData] = .bool(true)
        guard
            let found = try CredentialKeychain(creatingVault: false, environment: environment).find(query)?
                .dictionaryValue
        else { return Data() }
        var output = Data("password=".utf8) + (found[QueryKey.valueData]?.dataValue ?? Data()) + Data("\n".utf8)
        if credential.username == nil {
            let account = found[Attributes.account.code]
            output +=
                Data("username=".utf8) + (account?.dataValue ?? Data((account?.stringValue ?? "").utf8))
                + Data("\n".utf8)
        }
        return output
    }

    /// Stores a complete credential (protocol, host, username, password), replacing the secret of an
    /// item with the same attributes. Returns a note for standard error when nothing was stored.
    static func store(_ credential: GitCredential, _ environment: [String: String]) throws(KeychainError) -> String {
        guard credential.protocolCode != nil, credential.host != nil, credential.username != nil,
            let secret = credential.secret
        else {
            return
                "git-credential-keychainfs: not stored: git gave no complete credential (protocol, host, username and password)\n"
        }
        let query = credential.query.dictionary
        var item = query
        item[QueryKey.valueData] = .data(secret)
        try CredentialKeychain(creatingVault: true, environment: environment)
            .addOrUpdate(item, query: query, changes: [QueryKey.valueData: .data(secret)])
        return ""
    }

    /// Erases every item matching what git gave; given a password, only items whose password matches.
    /// Each item is deleted by kSecMatchItemList, as osxkeychain does.
    static func erase(_ credential: GitCredential, _ environment: [String: String]) throws(KeychainError) {
        let keychain = try CredentialKeychain(creatingVault: false, environment: environment)
        var query = credential.query.dictionary
        query[QueryKey.matchLimit] = .string(QueryKey.matchLimitAll)
        query[QueryKey.returnPersistentRef] = .bool(true)
        guard case .array(let references)? = try keychain.find(query) else { return }
        for reference in references {
            let item: KeychainDictionary = [
                QueryKey.class: .string(Schema.internetPassword.code), QueryKey.matchItemList: .array([reference]),
            ]
            if let password = credential.password {
                var read = item
                read[QueryKey.returnData] = .bool(true)
                guard let secret = try keychain.find(read)?.dataValue else { return }
                guard GitCredential.password(inSecret: secret) == password else { continue }
            }
            try keychain.delete(item)
        }
    }
}

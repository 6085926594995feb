import Foundation
import KeychainFSEngine
import KeychainFSModel

/// `docker-credential-keychainfs store|get|erase|list|version`: Docker's credential-helper protocol
/// (docker-credential-helpers' `credentials` package) over the items its osxkeychain helper makes:
/// internet passwords labelled "Docker Credentials", the server URL split into protocol, server, port
/// and path, the default authentication type. Errors go to standard output, as Docker reads them;
/// a locked device is the exception: nothing on standard output, the reason on standard error.
package enum DockerCredentialHelper {
    /// The label osxkeychain gives (`credentials.CredsLabel`); `list` shows only items that carry it.
    package static let label = "Docker Credentials"
    /// The message Docker recognises as "nothing stored for this server".
    package static let notFound = "credentials not found in native keychain"
    static let usage = "Usage: docker-credential-keychainfs <store|get|erase|list|version>"

    /// Runs the helper with its command-line arguments (without the program name).
    package static func run(
        _ arguments: [String], input: Data, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> HelperOutcome {
        guard arguments.count == 1 else { return HelperOutcome(stdout: Data((usage + "\n").utf8), status: 1) }
        let fail = { (message: String) in HelperOutcome(stdout: Data((message + "\n").utf8), status: 1) }
        do {
            switch arguments[0] {
            case "--version", "-v", "version": return HelperOutcome(stdout: version)
            case "--help", "-h": return HelperOutcome(stdout: Data((usage + "\n").utf8))
            case "store": try store(input, environment)
            case "get": return HelperOutcome(stdout: try get(input, environment))
            case "erase": try erase(input, environment)
            case "list": return HelperOutcome(stdout: try list(environment))
            default: return fail("docker-credential-keychainfs: unknown action: \(arguments[0])")
            }
        } catch let error as KeychainError where error.status == SecStatus.interactionNotAllowed {
            return HelperOutcome(
                stderr: "docker-credential-keychainfs: \(CredentialKeychain.explain(error))\n", status: 1)
        } catch let error as KeychainError where error.status == SecStatus.itemNotFound {
            return fail(notFound)
        } catch let error as KeychainError {
            return fail("docker-credential-keychainfs: \(CredentialKeychain.explain(error))")
        } catch {
            return fail("\(error)")
        }
        return HelperOutcome()
    }

    /// `name (package) version`, as the Go helpers print it.
    static var version: Data { Data("docker-credential-keychainfs (keychainfs) v0.0.0+unknown\n".utf8) }

    /// The server URL sent on standard input (lines joined, whitespace trimmed).
    static func serverURL(_ input: Data) throws -> String {
        let url = String(decoding: input.filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard !url.isEmpty else { throw DockerError("no credentials server URL") }
        return url
    }

    /// The attributes osxkeychain's `splitServer` sets: HTTPS unless the scheme is http, the host name,
    /// the port if one is given, the path if it is not empty.
    static func query(_ serverURL: String) throws -> InternetPasswordQuery {
        let url = try RegistryURL.parse(serverURL)
        return InternetPasswordQuery(
            server: url.host, path: url.path.isEmpty ? nil : url.path, port: url.port,
            protocolCode: InternetProtocol.code(url.scheme == "http" ? "HTTP" : "HTTPS"))
    }

    /// Stores the login for the URL, leaving one item for it, as osxkeychain's `Add` does; but in one
    /// transaction: the stored item (the one of this username if there is one) is updated in place, or the
    /// first one added, and only then are other items of the URL deleted. A login the keychain refuses (a
    /// secret over its value limit, a locked device) leaves what was stored as it was.
    static func store(_ input: Data, _ environment: [String: String]) throws {
        let fields = try GoJSON.decodeStrings(
            Data(input.filter { $0 != UInt8(ascii: "\n") }), fields: ["ServerURL", "Username", "Secret"],
            type: "credentials.Credentials")
        guard let url = fields["ServerURL"], !url.isEmpty else { throw DockerError("no credentials server URL") }
        guard let username = fields["Username"], !username.isEmpty else { throw DockerError("no credentials username") }
        let server = try query(url)
        var item = server
        item.account = username
        item.label = label
        item.authenticationType = InternetProtocol.defaultAuthentication  // so that helpers before v0.9 find it
        item.port = item.port ?? 0  // what an add stores: an update must move a kept item of another port or path
        item.path = item.path ?? ""
        var attributes = item.dictionary
        attributes[QueryKey.valueData] = .data(Data((fields["Secret"] ?? "").utf8))
        let keychain = try CredentialKeychain(creatingVault: true, environment: environment)
        var stored = server.dictionary
        stored[QueryKey.matchLimit] = .string(QueryKey.matchLimitAll)
        stored[QueryKey.returnAttributes] = .bool(true)
        stored[QueryKey.returnPersistentRef] = .bool(true)
        let existing = (try keychain.find(stored)?.arrayValue ?? []).compactMap(\.dictionaryValue)
        // The item that already is this login, else one of this username, else any: no update collides.
        let identity = item.dictionary.filter {
            [Attributes.account.code, Attributes.port.code, Attributes.path.code].contains($0.key)
        }
        let exact = existing.first { found in identity.allSatisfy { found[$0.key] == $0.value } }
        guard
            let kept = exact ?? existing.first(where: { $0[Attributes.account.code]?.stringValue == username })
                ?? existing.first,
            let keptRef = kept[QueryKey.valuePersistentRef]
        else {
            try keychain.add(attributes)
            return
        }
        attributes[QueryKey.class] = nil
        try keychain.update([QueryKey.valuePersistentRef: keptRef], attributes)
        for other in existing.compactMap({ $0[QueryKey.valuePersistentRef] }) where other != keptRef {
            try keychain.delete([QueryKey.valuePersistentRef: other])
        }
    }

    /// `{"ServerURL","Username","Secret"}` of the first item for the URL.
    static func get(_ input: Data, _ environment: [String: String]) throws -> Data {
        let url = try serverURL(input)
        var query = try query(url).dictionary
        query[QueryKey.matchLimit] = .string(QueryKey.matchLimitOne)
        query[QueryKey.returnAttributes] = .bool(true)
        query[QueryKey.returnData] = .bool(true)
        guard
            let found = try CredentialKeychain(creatingVault: false, environment: environment).find(query)?
                .dictionaryValue
        else {
            throw DockerError(notFound)
        }
        return GoJSON.object([
            ("ServerURL", Data(url.utf8)), ("Username", text(found[Attributes.account.code])),
            ("Secret", found[QueryKey.valueData]?.dataValue ?? Data()),
        ])
    }

    /// Deletes every item for the URL; "not found" when there was none.
    static func erase(_ input: Data, _ environment: [String: String]) throws {
        let query = try query(try serverURL(input))
        guard try CredentialKeychain(creatingVault: false, environment: environment).delete(query.dictionary) else {
            throw DockerError(notFound)
        }
    }

    /// `{url: username}` for every item labelled "Docker Credentials".
    static func list(_ environment: [String: String]) throws -> Data {
        var query = InternetPasswordQuery(label: label).dictionary
        query[QueryKey.matchLimit] = .string(QueryKey.matchLimitAll)
        query[QueryKey.returnAttributes] = .bool(true)
        var entries: [String: String] = [:]
        if case .array(let items)? = try CredentialKeychain(creatingVault: false, environment: environment).find(query)
        {
            for case .dictionary(let item) in items {
                let url = RegistryURL.listed(
                    https: item[Attributes.protocol.code] == InternetProtocol.code("HTTPS"),
                    host: String(decoding: text(item[Attributes.server.code]), as: UTF8.self),
                    port: Int(item[Attributes.port.code]?.numberValue ?? 0),
                    path: String(decoding: text(item[Attributes.path.code]), as: UTF8.self))
                entries[url] = String(decoding: text(item[Attributes.account.code]), as: UTF8.self)
            }
        }
        return GoJSON.map(entries)
    }

    /// A string or data attribute's bytes.
    private static func text(_ value: KeychainValue?) -> Data {
        value?.dataValue ?? Data((value?.stringValue ?? "").utf8)
    }
}

/// A failure of Docker's protocol, printed as its message.
struct DockerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

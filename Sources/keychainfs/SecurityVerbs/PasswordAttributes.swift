import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The attribute flags shared by the password verbs, as macOS `security` spells them.
struct PasswordAttributes: ParsableArguments {
    @Option(name: .customShort("a"), help: "Account name.") var account: String?
    @Option(name: .customShort("c"), help: "Creator (four-character code).") var creator: String?
    @Option(name: .customShort("C"), help: "Type (four-character code).") var type: String?
    @Option(name: .customShort("D"), help: "Kind (description).") var kind: String?
    @Option(name: .customShort("j"), help: "Comment.") var comment: String?
    @Option(name: .customShort("l"), help: "Label.") var label: String?

    func attributes() throws -> KeychainDictionary {
        var d: KeychainDictionary = [:]
        if let account { d[Attributes.account.code] = .string(account) }
        if let creator { d[Attributes.creator.code] = try SecurityOutput.fourCharCode(creator) }
        if let type { d[Attributes.type.code] = try SecurityOutput.fourCharCode(type) }
        if let kind { d[Attributes.description.code] = .string(kind) }
        if let comment { d[Attributes.comment.code] = .string(comment) }
        if let label { d[Attributes.label.code] = .string(label) }
        return d
    }
}

/// Generic-password flags: service and generic attribute.
struct GenericPasswordAttributes: ParsableArguments {
    @OptionGroup var common: PasswordAttributes
    @Option(name: .customShort("s"), help: "Service name.") var service: String?
    @Option(name: .customShort("G"), help: "Generic attribute value.") var generic: String?

    func attributes() throws -> KeychainDictionary {
        var d = try common.attributes()
        d[QueryKey.class] = .string(Schema.genericPassword.code)
        if let service { d[Attributes.service.code] = .string(service) }
        if let generic { d[Attributes.generic.code] = .string(generic) }
        return d
    }
}

/// Internet-password flags: server, domain, path, port, protocol and authentication type.
struct InternetPasswordAttributes: ParsableArguments {
    @OptionGroup var common: PasswordAttributes
    @Option(name: .customShort("s"), help: "Server name.") var server: String?
    @Option(name: .customShort("d"), help: "Security domain.") var securityDomain: String?
    @Option(name: .customShort("p"), help: "Path.") var path: String?
    @Option(name: .customShort("P"), help: "Port number.") var port: Int64?
    @Option(name: .customShort("r"), help: "Protocol (four-character code, e.g. 'htps').") var `protocol`: String?
    @Option(name: .customShort("t"), help: "Authentication type (four-character code, e.g. 'dflt').")
    var authenticationType: String?

    func attributes() throws -> KeychainDictionary {
        var d = try common.attributes()
        d[QueryKey.class] = .string(Schema.internetPassword.code)
        if let server { d[Attributes.server.code] = .string(server) }
        if let securityDomain { d[Attributes.securityDomain.code] = .string(securityDomain) }
        if let path { d[Attributes.path.code] = .string(path) }
        if let port { d[Attributes.port.code] = .number(port) }
        if let value = `protocol` {
            guard value.utf8.count == 4 else {
                throw ValidationError("-r takes a four-character protocol code such as 'htps' or 'ftp '")
            }
            d[Attributes.protocol.code] = .string(value)
        }
        if let authenticationType {
            guard authenticationType.utf8.count == 4 else {
                throw ValidationError("-t takes a four-character code such as 'dflt'")
            }
            d[Attributes.authenticationType.code] = .string(authenticationType)
        }
        return d
    }
}

import ArgumentParser
import Foundation
import KeychainEngine
import KeychainModel

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
        if let account { d["acct"] = .string(account) }
        if let creator { d["crtr"] = try SecurityOutput.fourCharCode(creator) }
        if let type { d["type"] = try SecurityOutput.fourCharCode(type) }
        if let kind { d["desc"] = .string(kind) }
        if let comment { d["icmt"] = .string(comment) }
        if let label { d["labl"] = .string(label) }
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
        d["class"] = "genp"
        if let service { d["svce"] = .string(service) }
        if let generic { d["gena"] = .string(generic) }
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
    @Option(name: .customShort("t"), help: "Authentication type (four-character code, e.g. 'dflt').") var authenticationType: String?

    func attributes() throws -> KeychainDictionary {
        var d = try common.attributes()
        d["class"] = "inet"
        if let server { d["srvr"] = .string(server) }
        if let securityDomain { d["sdmn"] = .string(securityDomain) }
        if let path { d["path"] = .string(path) }
        if let port { d["port"] = .number(port) }
        if let value = `protocol` {
            guard value.utf8.count == 4 else { throw ValidationError("-r takes a four-character protocol code such as 'htps' or 'ftp '") }
            d["ptcl"] = .string(value)
        }
        if let authenticationType {
            guard authenticationType.utf8.count == 4 else { throw ValidationError("-t takes a four-character code such as 'dflt'") }
            d["atyp"] = .string(authenticationType)
        }
        return d
    }
}

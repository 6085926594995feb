import Foundation

/// A call's arguments checked against the signature its method takes: a wrong count or type is
/// InvalidArgs with the method's name, never a crash.
struct CallArguments {
    let call: BusCall

    init(_ call: BusCall, signature: String) throws(BusError) {
        let sent = call.arguments.map(\.signature).joined()
        // `ay` arrives as bytes; an empty `ay` may also be sent as an empty array of bytes.
        guard sent == signature else {
            throw .invalidArgs("\(call.interface).\(call.member) takes (\(signature)), not (\(sent))")
        }
        self.call = call
    }

    subscript(_ index: Int) -> BusValue { call.arguments[index] }

    func string(_ index: Int) -> String { call.arguments[index].stringValue ?? "" }

    /// A secret struct (oayays): its session, parameters, value and content type.
    static func secret(_ value: BusValue) throws(BusError) -> (
        session: String, parameters: Data, value: Data, contentType: String
    ) {
        guard case .structure(let fields) = value, fields.count == 4, case .objectPath(let session) = fields[0],
            let parameters = fields[1].bytesValue, let secret = fields[2].bytesValue,
            case .string(let contentType) = fields[3]
        else {
            throw .invalidArgs("a secret is (oayays): session, parameters, value, content type")
        }
        guard contentType.utf8.count <= 256 else { throw .invalidArgs("a content type is at most 256 bytes") }
        return (session, parameters, secret, contentType)
    }

    /// The secret struct sent to a client.
    static func secret(session: String, parameters: Data, value: Data, contentType: String) -> BusValue {
        .structure([.objectPath(session), .bytes(parameters), .bytes(value), .string(contentType)])
    }

    /// Object paths of an `ao` argument.
    func paths(_ index: Int) -> [String] { (call.arguments[index].elements ?? []).compactMap(\.stringValue) }
}

import Foundation
@testable import KeychainFSControlChannel
import Crypto
@testable import KeychainFSEngine
@testable import KeychainFSSync
import KeychainFSModel
import KeychainFSStore
import KeychainFSSodium

/// Writes the committed seed corpora: valid inputs of every target, made with the code that produces them
/// (frames by the encoder, rows by the sealer, certificates by openssl), so the fuzzer starts past the
/// first checks.
public enum SeedCorpus {
    public static func write(into directory: String) throws {
        var seeds: [FuzzTarget: [String: Data]] = [:]
        let requests = sampleRequests()
        for (name, request) in requests {
            seeds[.codec, default: [:]][name] = ValueCodec.encode(request.encoded)
            seeds[.query, default: [:]][name] = ValueCodec.encode(request.encoded)
            let payload = ValueCodec.encode(request.encoded)
            seeds[.frames, default: [:]][name] =
                withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Data($0) } + payload
        }
        let response = ControlResponse(
            status: SecStatus.itemNotFound, message: "not found",
            result: .array([.date(Date(timeIntervalSinceReferenceDate: 1)), .bool(true)]))
        seeds[.codec, default: [:]]["response"] = ValueCodec.encode(response.encoded)
        seeds[.der] = try derSeeds()
        seeds[.names] = nameSeeds()
        seeds[.xattr] = xattrSeeds()
        seeds[.vault] = try vaultSeeds()
        seeds[.keyfiles] = try keyFileSeeds()
        seeds[.members] = memberSeeds()
        for (target, files) in seeds {
            let folder = directory + "/" + target.rawValue
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (name, data) in files { try data.write(to: URL(fileURLWithPath: folder + "/seed-" + name)) }
        }
    }

    /// A test-only device key and a keybag without passcode made with it, for the vault-files target.
    public static func writeFixtures(into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let vault = try Vault.create(
            at: directory + "/vault", deviceKeyPath: directory + "/device.key", testDevice: true)
        try FileManager.default.moveItem(atPath: vault.keybagPath, toPath: directory + "/keybag")
        try FileManager.default.removeItem(atPath: vault.directory)
    }

    private static func sampleRequests() -> [String: ControlRequest] {
        let secret: KeychainValue = .data(Data("s3cret".utf8))
        return [
            "add-genp": ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "genp", "svce": "svc", "acct": "alice", "v_Data": secret, "pdmn": "ck",
                    ])
                ]),
            "add-inet": ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "inet", "srvr": "example.com", "acct": "bob", "port": .number(8443), "ptcl": "htps",
                        "v_Data": secret,
                    ])
                ]),
            "add-key": ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "keys", "atag": .data(Data("tag".utf8)), "kcls": .number(2),
                        "v_Data": .data(Data(repeating: 7, count: 32)),
                    ])
                ]),
            "copy-all": ControlRequest(
                .itemCopyMatching,
                [
                    "query": .dictionary([
                        "class": "genp", "m_Limit": "m_LimitAll", "r_Attributes": .bool(true), "r_Data": .bool(true),
                    ]), "accessGroups": .array(["default", "TEAM.shared"]),
                ]),
            "copy-one": ControlRequest(
                .itemCopyMatching,
                [
                    "query": .dictionary([
                        "class": "genp", "svce": "svc", "acct": "alice", "r_Data": .bool(true),
                        "r_PersistentRef": .bool(true),
                    ])
                ]),
            "update": ControlRequest(
                .itemUpdate,
                [
                    "query": .dictionary(["class": "genp", "svce": "svc"]),
                    "attributes": .dictionary([
                        "labl": "label", "v_Data": secret, "mdat": .date(Date(timeIntervalSinceReferenceDate: 1e6)),
                    ]),
                ]),
            "delete": ControlRequest(
                .itemDelete, ["query": .dictionary(["class": "genp", "svce": "svc", "syna": "syna"])]),
            "status": ControlRequest(.status),
        ]
    }

    /// A founder's genesis entry and an add (a log that verifies), the keyring of that epoch, a join
    /// request and a signed item file, all made by the code that writes them.
    private static func memberSeeds() -> [String: Data] {
        let founder = SyncIdentity.generate(name: "founder"), joiner = SyncIdentity.generate(name: "joiner")
        defer { founder.wipe(); joiner.wipe() }
        let epochKey = GuardedKey.random(), requestKey = GuardedKey.random()
        defer { epochKey.wipe(); requestKey.wipe() }
        let date = Date(timeIntervalSinceReferenceDate: 1e8)
        let first = EpochKeyring.seal(epochKey, epoch: 1, to: [founder.keys])
        var genesis = MemberLogEntry(
            sequence: 0, previous: Data(), operation: .found, subject: founder.keys, epoch: 1,
            keyring: EpochKeyring.digest(first), signer: founder.keys.signingKey, date: date)
        genesis.signature = founder.sign(genesis.signedBytes)
        let both = EpochKeyring.seal(epochKey, epoch: 1, to: [founder.keys, joiner.keys])
        var add = MemberLogEntry(
            sequence: 1, previous: genesis.hash, operation: .add, subject: joiner.keys, epoch: 1,
            keyring: EpochKeyring.digest(both), signer: founder.keys.signingKey, date: date)
        add.signature = founder.sign(add.signedBytes)
        let record = SyncRecord(
            classCode: "genp", attributes: ["svce": "svc", "acct": "alice", "pdmn": "ck", "sync": .number(1)],
            secret: Data("s3cret".utf8), deleted: false)
        let item = SignedSyncFile.seal(
            record, name: String(repeating: "ab", count: 20), epoch: 1, itemKey: CircleKeys.itemKey(epochKey),
            identity: founder)
        return [
            "log-genesis": MemberLog.encode([genesis]), "log-add": MemberLog.encode([genesis, add]),
            "entry-add": add.encoded,
            "keyring": both, "join-request": JoinRequest.seal(joiner.keys, key: requestKey), "signed-item": item,
        ]
    }

    private static func derSeeds() throws -> [String: Data] {
        var seeds: [String: Data] = [
            "p256-public-x963": P256.Signing.PrivateKey().publicKey.x963Representation,
            "p256-private-x963": P256.Signing.PrivateKey().x963Representation,
            "p384-private-x963": P384.Signing.PrivateKey().x963Representation,
            "p521-public-x963": P521.Signing.PrivateKey().publicKey.x963Representation,
        ]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-seeds-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            directory + "/ec.pem",
            "-subj", "/CN=fuzz.example/O=keychainfs/C=FR", "-days", "1", "-outform", "DER", "-out",
            directory + "/ec.der",
            "-addext", "subjectAltName=DNS:fuzz.example",
        ])
        try openssl([
            "req", "-x509", "-newkey", "rsa:1024", "-nodes", "-keyout", directory + "/rsa.pem", "-subj",
            "/CN=rsa.example",
            "-days", "1", "-outform", "DER", "-out", directory + "/rsa.der",
        ])
        try openssl([
            "rsa", "-in", directory + "/rsa.pem", "-outform", "DER", "-traditional", "-out",
            directory + "/rsa-private.der",
        ])
        try openssl([
            "rsa", "-in", directory + "/rsa.pem", "-RSAPublicKey_out", "-outform", "DER", "-out",
            directory + "/rsa-public.der",
        ])
        for name in ["ec.der", "rsa.der", "rsa-private.der", "rsa-public.der"] {
            seeds[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        return seeds
    }

    /// PKCS#12 files of both encryptions, an encrypted PEM key, a PEM certificate with its key (passphrase "fuzz").
    private static func keyFileSeeds() throws -> [String: Data] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-keyfile-seeds-\(getpid())")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            directory + "/key.pem",
            "-subj", "/CN=fuzz.example", "-days", "1", "-out", directory + "/cert.pem",
        ])
        for legacy in [false, true] {
            try openssl(
                [
                    "pkcs12", "-export", "-inkey", directory + "/key.pem", "-in", directory + "/cert.pem", "-name",
                    "fuzz",
                    "-passout", "pass:fuzz", "-out", directory + "/\(legacy ? "legacy" : "modern").p12",
                ] + (legacy ? ["-legacy"] : []))
        }
        try openssl([
            "pkey", "-in", directory + "/key.pem", "-aes256", "-passout", "pass:fuzz", "-out",
            directory + "/encrypted.pem",
        ])
        var seeds: [String: Data] = [:]
        for name in ["modern.p12", "legacy.p12", "encrypted.pem"] {
            seeds[name] = FileManager.default.contents(atPath: directory + "/" + name)
        }
        seeds["cert-and-key.pem"] =
            (FileManager.default.contents(atPath: directory + "/cert.pem") ?? Data())
            + (FileManager.default.contents(atPath: directory + "/key.pem") ?? Data())
        return seeds
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PropertyViolation("openssl \(arguments.first ?? "") failed") }
    }

    private static func nameSeeds() -> [String: Data] {
        let names: [(UInt8, String)] = [
            (0, "alice"), (0, "alice;agrp=TEAM.shared;sync=1"), (0, "%2E%2E"), (0, "caf%C3%A9"), (0, "a%2Fb%3Bc"),
            (0, "%"),
            (1, "example.com"), (1, "bob;port=8443;ptcl=htps"), (2, "private"), (2, "symmetric;bsiz=256;type=73"),
            (3, "0a1b"), (3, "My Cert"), (2, "public;sdat=2001-01-01T00:00:00.000Z"), (2, "private;edat=0.0004"),
        ]
        var seeds: [String: Data] = [:]
        for (index, (selector, name)) in names.enumerated() { seeds["\(index)"] = Data([selector]) + Data(name.utf8) }
        return seeds
    }

    private static func xattrSeeds() -> [String: Data] {
        let attributes = Schema.classes.flatMap(\.attributes)
        var seeds: [String: Data] = [:]
        for (index, attribute) in attributes.enumerated() where index < 256 {
            let sample: String
            switch attribute.kind {
            case .date: sample = "2026-11-22T11:42:30.895Z"
            case .number, .synchronizable: sample = "42"
            case .accessibility: sample = "kSecAttrAccessibleAfterFirstUnlock"
            default: sample = attribute.enumeration?.cases.first?.name ?? "value"
            }
            seeds["\(attribute.name)-\(index)"] = Data([UInt8(index)]) + Data(sample.utf8)
        }
        return seeds
    }

    private static func vaultSeeds() throws -> [String: Data] {
        var seeds: [String: Data] = [:]
        if let keybag = FileManager.default.contents(atPath: FuzzFixtures.keybagPath) {
            seeds["keybag"] = Data([0]) + keybag
        }
        let config = Vault.Config(deviceKeyPath: "/home/user/.local/state/keychainfs/device.key", testDevice: true)
        seeds["vault.json"] = Data([1]) + (try JSONEncoder().encode(config))
        let deviceKey = try DeviceKey.load(from: FuzzFixtures.deviceKeyPath)
        let keybag = try Keybag(path: FuzzFixtures.keybagPath, deviceKey: deviceKey)
        for (schema, accessibility) in [
            (Schema.genericPassword, Accessibility.afterFirstUnlock), (Schema.key, .alwaysThisDeviceOnly),
        ] {
            let keys = try keybag.keys(for: accessibility)
            let uuid = Data((0..<16).map { UInt8($0) })
            let lookups: [Data?] = schema.attributes.map { $0.isPrimaryKey ? Data(repeating: 0xAB, count: 16) : nil }
            let sealed = ItemSealer.seal(
                attributes: ["acct": "alice", "svce": "svc", "labl": "a label"], lookups: lookups,
                secret: Data("s3cret".utf8),
                schema: schema, uuid: uuid, accessibility: accessibility, keys: keys)
            let row = StoredRow(
                rowid: 1, uuid: uuid, accessibility: accessibility, metadata: sealed.metadata, rowKey: sealed.rowKey,
                secret: sealed.secret, lookups: lookups)
            seeds["row-\(schema.code)"] = Data([2]) + StoredRowCoding.encode(row, classCode: schema.code)
        }
        return seeds
    }
}

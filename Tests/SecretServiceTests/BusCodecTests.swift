import Foundation
import Testing
@testable import KeychainFSSecretService

/// The bus codec without a bus: every shape the service sends reads back as itself through sd-bus, and the
/// fuzz target's round trip really runs (its connection starts, its inputs make values).
@Suite struct BusCodecTests {
    @Test func everyShapeTheServiceSendsReadsBackAsItself() throws {
        let roundTrip = try #require(BusValueRoundTrip())
        let values: [BusValue] = [
            .string("text"), .objectPath("/org/freedesktop/secrets/collection/login"), .bool(true),
            .uint64(1_795_716_213), .int32(-7),
            .bytes(Data([0, 1, 255])), .bytes(Data()), .stringMap(["service": "svc", "username": "alice"]),
            .properties(["Locked": .bool(false), "Items": .paths(["/a", "/b"])]),
            .dictionary(
                key: "o", value: "(oayays)",
                [
                    .init(
                        .objectPath("/i"),
                        .structure([.objectPath("/s"), .bytes(Data([1])), .bytes(Data([2])), .string("text/plain")]))
                ]),
            .variant(.variant(.string("nested"))), .array(element: "s", []),
        ]
        #expect(roundTrip.readBack(values) == .success(values))
    }

    @Test func theFuzzTargetsSeedsMakeValuesThatReadBack() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("fuzz/corpus/secretservice").path
        let seed = try #require(FileManager.default.contents(atPath: corpus + "/seed-values"))
        var generator = FuzzValues(seed)
        let values = generator.values()
        #expect(values.count >= 3, "\(values)")
        #expect(try #require(BusValueRoundTrip()).readBack(values) == .success(values))
        #expect(SecretServiceFuzzInputs.check(seed, roundTrip: BusValueRoundTrip()) == nil)
    }

    @Test func aClientsItemPathParsesOnlyAsWhatTheServiceMakes() {
        let reference = Data([0x67, 0x65, 0x6e, 0x70, 0x00, 0xff, 0x0a])
        #expect(ObjectPath.itemPath(reference) == "/org/freedesktop/secrets/collection/login/67656e7000ff0a")
        #expect(ObjectPath.parse(ObjectPath.itemPath(reference)) == .item(reference))
        for path in [
            "/org/freedesktop/secrets/collection/login/ABCD", "/org/freedesktop/secrets/collection/login/abc",
            "/org/freedesktop/secrets/collection/login/", "/org/freedesktop/secrets/session/s-1",
            "/org/freedesktop/secrets/session/sx",
            "/org/freedesktop/secrets/collection/other", "/",
        ] {
            #expect(ObjectPath.parse(path) == nil, "\(path)")
        }
        #expect(ObjectPath.parse("/org/freedesktop/secrets/aliases/default") == .collection)
    }
}

/// The address the service reconnects to: the old bus's GUID would make sd-bus refuse a bus started again
/// at the same path.
@Test func aReconnectionAddressDropsTheOldBusGUID() {
    #expect(SecretService.withoutGUID("unix:path=/tmp/b,guid=0123abcd") == "unix:path=/tmp/b")
    #expect(
        SecretService.withoutGUID("unix:guid=1,path=/a;tcp:host=x,guid=2,port=1") == "unix:path=/a;tcp:host=x,port=1")
    #expect(SecretService.withoutGUID("unix:path=/plain") == "unix:path=/plain")
}

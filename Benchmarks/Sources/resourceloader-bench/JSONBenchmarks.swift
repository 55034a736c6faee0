import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A city, as in `Examples/Sources/ExampleResources/City.swift`.
struct City: Decodable, Hashable, Sendable {
    let name: String
}

/// The in-body error shape, as in `Examples/Sources/ExampleResources/ExampleServiceError.swift`.
struct ExampleServiceError: Error, Decodable, Hashable {
    let error: String
}

/// The top level of the cities JSON.
struct CitiesRoot: Decodable, Sendable {
    let cities: [City]
}

/// The Examples package's `Cities` resource, restated here (the Examples package exports no
/// library): the Decodable path, with its service-level error check.
struct Cities: NetworkResourceType, JSONDecodableResourceType {
    typealias Root = CitiesRoot
    typealias ServiceError = ExampleServiceError
    let baseURL: URL
    let continent: String
    var url: URL { baseURL.appendingPathComponent("\(continent).json") }
    func model(from root: Root) -> [City] { root.cities }
}

/// The same resource without a service-level error shape, as the end-to-end runs use it.
struct CityList: NetworkResourceType, JSONDecodableResourceType {
    typealias Root = CitiesRoot
    let url: URL
    func model(from root: Root) -> [City] { root.cities }
}

/// The same cities through `JSONSerialization` and `modelFrom(jsonDictionary:)`.
struct CitiesFromDictionary: NetworkResourceType, JSONResourceType {
    var url: URL { URL(string: "http://127.0.0.1/cities/europe.json")! }

    func modelFrom(jsonDictionary: [String: Any]) -> [City]? {
        citiesFromDictionary(jsonDictionary)
    }
}

/// The mapping both `JSONSerialization` contenders use.
func citiesFromDictionary(_ dictionary: [String: Any]) -> [City]? {
    guard let list = dictionary["cities"] as? [[String: Any]] else { return nil }
    var cities: [City] = []
    cities.reserveCapacity(list.count)
    for entry in list {
        guard let name = entry["name"] as? String else { return nil }
        cities.append(City(name: name))
    }
    return cities
}

/// `{"cities":[{"name":"City 0"},…]}` with `count` cities.
func citiesDocument(count: Int) -> Data {
    var text = #"{"cities":["#
    text.reserveCapacity(count * 24 + 16)
    for index in 0..<count {
        if index > 0 { text += "," }
        text += #"{"name":"City \#(index)"}"#
    }
    text += "]}"
    return Data(text.utf8)
}

func isExpected(_ cities: [City], count: Int) -> Bool {
    cities.count == count && (count == 0 || (cities[0].name == "City 0" && cities[count - 1].name == "City \(count - 1)"))
}

enum JSONContender: String, CaseIterable {
    case rawSerialization = "raw JSONSerialization"
    case resourceSerialization = "ResourceLoader JSONResourceType"
    case rawDecoder = "raw JSONDecoder"
    case resourceDecodable = "ResourceLoader JSONDecodableResourceType (Cities)"

    var key: String {
        switch self {
        case .rawSerialization: "raw-jsonserialization"
        case .resourceSerialization: "jsonresourcetype"
        case .rawDecoder: "raw-jsondecoder"
        case .resourceDecodable: "jsondecodable"
        }
    }

    func parse(_ data: Data) throws -> [City] {
        switch self {
        case .rawSerialization:
            guard let dictionary = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let cities = citiesFromDictionary(dictionary)
            else { throw HarnessError("unexpected JSON") }
            return cities
        case .resourceSerialization:
            return try CitiesFromDictionary().result(from: data).get()
        case .rawDecoder:
            return try JSONDecoder().decode(CitiesRoot.self, from: data).cities
        case .resourceDecodable:
            return try Cities(baseURL: URL(string: "http://127.0.0.1/cities")!, continent: "europe").result(from: data).get()
        }
    }
}

// MARK: - A nested API response, and one small object

/// An API-style response: nested objects, optionals, arrays, ISO 8601 dates and numbers of every
/// kind (64-bit identifiers, prices, ratios, counts, flags).
struct Listing: Decodable, Sendable {
    struct Item: Decodable, Sendable {
        struct Seller: Decodable, Sendable {
            let id: Int64
            let name: String
            let rating: Double?
            let verified: Bool
        }

        struct Price: Decodable, Sendable {
            let amount: Double
            let currency: String
            let discount: Float?
        }

        let id: UInt64
        let title: String
        let description: String?
        let price: Price
        let seller: Seller
        let tags: [String]
        let createdAt: Date
        let updatedAt: Date?
        let stock: Int
        let dimensions: [Double]
    }

    struct Page: Decodable, Sendable {
        let number: Int
        let size: Int
        let total: Int64
        let next: String?
    }

    let items: [Item]
    let page: Page
}

/// `count` items of ``Listing`` as JSON (about 500 bytes each).
func listingDocument(count: Int) -> Data {
    var text = #"{"items":["#
    text.reserveCapacity(count * 520 + 128)
    for index in 0..<count {
        if index > 0 { text += "," }
        let day = String(format: "%02d", index % 28 + 1)
        let hour = String(format: "%02d", index % 24)
        let description = index % 4 == 0 ? "null" : #""A longer description of item \#(index), with some text \"quoted\" and é""#
        let rating = index % 5 == 0 ? "null" : "\(Double(index % 50) / 10 + 0.05)"
        let discount = index % 3 == 0 ? "" : #","discount":0.\#(index % 90 + 10)"#
        let updated = index % 2 == 0 ? #""updatedAt":null,"# : #""updatedAt":"2026-02-\#(day)T\#(hour):30:00Z","#
        text += #"{"id":\#(9_000_000_000_000_000_000 as UInt64 + UInt64(index)),"title":"Item number \#(index)","#
            + #""description":\#(description),"price":{"amount":\#(Double(index % 10_000) * 1.25 + 0.99),"currency":"EUR"\#(discount)},"#
            + #""seller":{"id":\#(-1_000_000_000_000 - Int64(index)),"name":"Seller \#(index % 977)","rating":\#(rating),"verified":\#(index % 2 == 0)},"#
            + #""tags":["new","sale","item-\#(index % 13)"],"createdAt":"2026-01-\#(day)T\#(hour):15:42Z",\#(updated)"#
            + #""stock":\#(index % 1000 - 10),"dimensions":[\#(Double(index % 100) / 3),12.5,1e-3]}"#
    }
    text += #"],"page":{"number":1,"size":\#(count),"total":\#(Int64(count) * 1000),"next":"https://api.example.com/items?page=2"}}"#
    return Data(text.utf8)
}

/// The decoder both contenders use: `.iso8601` dates, as an API client would set it.
func listingDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

/// ``Listing`` through ResourceLoader.
struct ListingResource: JSONDecodableResourceType {
    typealias Model = Listing
    var jsonDecoder: JSONDecoder { listingDecoder() }
}

enum ListingContender: String, CaseIterable {
    case rawDecoder = "raw JSONDecoder"
    case resourceDecodable = "ResourceLoader JSONDecodableResourceType"

    func parse(_ data: Data) throws -> Listing {
        switch self {
        case .rawDecoder: try listingDecoder().decode(Listing.self, from: data)
        case .resourceDecodable: try ListingResource().result(from: data).get()
        }
    }
}

// MARK: - The physical anchors

/// A model that reads nothing: decoding it costs the parse into ResourceLoader's tree, and the
/// set-up of a decoder, and nothing more.
struct Unread: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// The Cities document parsed into ResourceLoader's tree (``Unread``).
struct CitiesTree: JSONDecodableResourceType {
    typealias Model = Unread
}

/// RapidJSON's and simdjson's throughput on the Cities document, from the C++ harness in
/// `Benchmarks/cpp/json-anchors.cpp`, built with `g++` when Debian's `rapidjson-dev` and
/// `libsimdjson-dev` are installed; `nil` (with a log line) when they are not.
func anchorThroughput(count: Int, seconds: Double) -> (bytes: Int, rapidjson: Double, simdjson: Double)? {
    let source = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("cpp/json-anchors.cpp")
    let headers = ["/usr/include/rapidjson/document.h", "/usr/include/simdjson.h"]
    guard headers.allSatisfy(FileManager.default.fileExists(atPath:)) else {
        log("json: SKIPPING the C++ anchors: apt-get install -y rapidjson-dev libsimdjson-dev")
        return nil
    }
    let binary = FileManager.default.temporaryDirectory.appendingPathComponent("resourceloader-json-anchors").path
    do {
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = ["g++", "-O2", "-std=c++17", source.path, "-lsimdjson", "-o", binary]
        try compile.run()
        compile.waitUntilExit()
        guard compile.terminationStatus == 0 else { throw HarnessError("g++ failed") }
        let run = Process()
        run.executableURL = URL(fileURLWithPath: binary)
        run.arguments = [String(count), String(seconds)]
        let output = Pipe()
        run.standardOutput = output
        try run.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        run.waitUntilExit()
        struct Report: Decodable { let bytes: Int; let rapidjson: Double; let simdjson: Double }
        let report = try JSONDecoder().decode(Report.self, from: data)
        return (report.bytes, report.rapidjson, report.simdjson)
    } catch {
        log("json: the C++ anchors failed: \(error)")
        return nil
    }
}

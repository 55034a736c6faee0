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

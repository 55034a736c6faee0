import Foundation
import ResourceLoader

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct City: Codable, Hashable, Sendable {
    let name: String
}

/// `{"cities": [...]}` → `[City]` through the Decodable path with a `Root`.
struct CitiesResource: NetworkResourceType, JSONDecodableResourceType {
    struct Root: Decodable { let cities: [City] }
    var url = URL(string: "https://api.example.com/europe.json")!
    func model(from root: Root) -> [City] { root.cities }
}

/// `[...]` → `[City]` through the Decodable path with `Root == Model`.
struct CityArrayResource: NetworkResourceType, JSONDecodableResourceType {
    typealias Model = [City]
    var url = URL(string: "https://api.example.com/cities")!
}

/// `{"cities": [...]}` → `[City]` through `JSONSerialization`, reporting `{"error": …}` bodies
/// as service-level errors.
struct CityNamesResource: NetworkResourceType, JSONResourceType {
    struct ServiceError: Error, Equatable { let message: String }

    var url = URL(string: "https://api.example.com/names")!
    var acceptableStatusCodes: Range<Int> = 200..<300

    func modelFrom(jsonDictionary: [String: Any]) -> [String]? {
        (jsonDictionary["cities"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
    }

    func serviceError(in data: Data) -> (any Error)? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let message = object["error"] as? String
        else { return nil }
        return ServiceError(message: message)
    }
}

/// A configurable request for the request-building tests.
struct Endpoint: NetworkResourceType, DataResourceType {
    var url: URL
    var httpMethod: HTTPMethod = .get
    var headerFields: [String: String] = [:]
    var queryItems: [URLQueryItem] = []
    var requestBody: RequestBody?
    var bodyError: (any Error)?
    var timeoutInterval: TimeInterval?

    init(_ url: String) {
        self.url = URL(string: url)!
    }

    var body: RequestBody? {
        get throws {
            if let bodyError { throw bodyError }
            return requestBody
        }
    }

    func model(from data: Data) throws -> Data { data }
}

extension ResourceError {
    /// A short name of the case, for assertions: the same names the fuzz checks report, from
    /// the one switch in `FuzzEntryPoints` (compiled into the fuzzers too, so it lives there).
    var caseName: String { FuzzEntryPoints.kind(self) }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A transport that answers with a plain `URLResponse`, as a `file:` or `data:` loader would.
struct NonHTTPSession: URLSessionType {
    final class Handle: Cancellable { func cancel() {} }
    var body = "{}"

    func data(
        for request: URLRequest, options: TransferOptions,
        completionHandler: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> any Cancellable {
        let response = URLResponse(url: request.url!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
        completionHandler(.success((Data(body.utf8), response)))
        return Handle()
    }
}

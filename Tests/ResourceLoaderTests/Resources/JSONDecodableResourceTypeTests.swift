import Foundation
import ResourceLoader
import Testing

@Suite("JSONDecodableResourceType")
struct JSONDecodableResourceTypeTests {
    @Test func mapsARootToTheModel() throws {
        let cities = try CitiesResource().model(from: Data(#"{"cities":[{"name":"Lisbon"}]}"#.utf8))
        #expect(cities == [City(name: "Lisbon")])
    }

    @Test func theRootIsTheModelByDefault() throws {
        let cities = try CityArrayResource().model(from: Data(#"[{"name":"Oslo"},{"name":"Bergen"}]"#.utf8))
        #expect(cities.map(\.name) == ["Oslo", "Bergen"])
    }

    @Test func usesTheResourcesDecoder() throws {
        struct Event: Decodable, Sendable { let startDate: Date }
        struct Events: JSONDecodableResourceType {
            typealias Model = Event
            var jsonDecoder: JSONDecoder {
                let decoder = JSONDecoder()
                decoder.keyDecodingStrategy = .convertFromSnakeCase
                decoder.dateDecodingStrategy = .iso8601
                return decoder
            }
        }
        let event = try Events().model(from: Data(#"{"start_date":"2026-01-02T03:04:05Z"}"#.utf8))
        #expect(event.startDate == Date(timeIntervalSince1970: 1_767_323_045))
    }

    @Test func decodingErrorsKeepTheCodingPath() throws {
        let data = Data(#"{"cities":[{"name":"Lisbon"},{"name":7}]}"#.utf8)
        let error = try #require(CitiesResource().result(from: data).failure)
        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(failure.underlying is DecodingError)
        #expect(failure.codingPath == "cities[1].name")
        #expect(error.description.contains("cities[1].name"))
    }

    @Test func aMissingKeyNamesTheKey() throws {
        let error = try #require(CitiesResource().result(from: Data(#"{"cities":[{}]}"#.utf8)).failure)
        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(failure.codingPath == "cities[0].name")
    }

    @Test func malformedJSONIsAParsingError() {
        #expect(CitiesResource().result(from: Data("{\"cities\":".utf8)).failure?.caseName == "parsing")
    }

    @Test func anEmptyBodyIsAnEmptyResponseError() {
        #expect(CitiesResource().result(from: Data()).failure?.caseName == "emptyResponse")
    }

    @Test func mappingErrorsAreParsingErrors() {
        struct First: JSONDecodableResourceType {
            struct Empty: Error {}
            typealias Root = [City]
            typealias Model = City
            func model(from root: [City]) throws -> City {
                guard let first = root.first else { throw Empty() }
                return first
            }
        }
        #expect(First().result(from: Data("[]".utf8)).failure?.caseName == "parsing")
        #expect((try? First().result(from: Data(#"[{"name":"A"}]"#.utf8)).get()) == City(name: "A"))
    }

    struct APIError: Error, Decodable, Equatable { let error: String }

    struct CitiesWithErrors: JSONDecodableResourceType {
        typealias Model = [City]
        typealias ServiceError = APIError
    }

    @Test func aDeclaredServiceErrorInTheBodyIsReported() throws {
        let error = try #require(CitiesWithErrors().result(from: Data(#"{"error":"quota exceeded"}"#.utf8)).failure)
        guard case .serviceLevel(let underlying) = error else {
            Issue.record("expected serviceLevel, got \(error)")
            return
        }
        #expect(underlying as? APIError == APIError(error: "quota exceeded"))
    }

    @Test func aBodyThatIsNotTheServiceErrorIsParsedAsTheModel() throws {
        #expect(try CitiesWithErrors().result(from: Data(#"[{"name":"Oslo"}]"#.utf8)).get() == [City(name: "Oslo")])
    }

    /// A root of any type, checked for ``APIError`` first, with snake-case keys and ISO 8601 dates.
    struct Checked<Model: Decodable & Sendable>: JSONDecodableResourceType {
        // Named, or a generic resource infers `Root` as `Data` from `model(from: Data)`.
        typealias Root = Model
        typealias ServiceError = APIError
        var jsonDecoder: JSONDecoder {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            decoder.dateDecodingStrategy = .iso8601
            decoder.dataDecodingStrategy = .base64
            return decoder
        }
    }

    @Test func aRootCheckedForAServiceErrorDecodesAsJSONDecoderDecodesIt() throws {
        // GIVEN resources that declare a service error, whose roots are types JSONDecoder
        // decodes by its strategies
        func expectFoundations<Model: Decodable & Sendable & Equatable>(_ type: Model.Type, _ body: String) {
            let resource = Checked<Model>()
            // WHEN a body that is not the service error is decoded
            let decoded = Result { try resource.model(from: Data(body.utf8)) }
            // THEN the model is JSONDecoder's
            let foundation = try? resource.jsonDecoder.decode(Model.self, from: Data(body.utf8))
            #expect(foundation != nil && (try? decoded.get()) == foundation, "\(body): \(decoded)")
        }
        // A dictionary's keys are left as they are by the key strategy.
        expectFoundations([String: Int].self, #"{"daily_limit":5}"#)
        expectFoundations(Date.self, #""2026-01-02T03:04:05Z""#)
        expectFoundations(Data.self, #""aGVsbG8=""#)
        expectFoundations(Decimal.self, "3.25")
        expectFoundations(URL.self, #""https://example.com/x""#)
        #expect(try Checked<[String: Int]>().model(from: Data(#"{"daily_limit":5}"#.utf8)) == ["daily_limit": 5])
    }

    @Test func withoutADeclaredServiceErrorNothingIsChecked() {
        #expect(CitiesResource().serviceError(in: Data(#"{"error":"x"}"#.utf8)) == nil)
    }
}

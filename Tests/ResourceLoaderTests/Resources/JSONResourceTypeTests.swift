import Foundation
import ResourceLoader
import Testing

@Suite("JSONResourceType")
struct JSONResourceTypeTests {
    struct ArrayResource: JSONResourceType {
        func modelFrom(jsonArray: [Any]) -> [Int]? { jsonArray as? [Int] }
    }

    @Test func buildsAModelFromADictionary() throws {
        let model = try CityNamesResource().model(from: Data(#"{"cities":[{"name":"Oslo"},{"name":"Rome"}]}"#.utf8))
        #expect(model == ["Oslo", "Rome"])
    }

    @Test func buildsAModelFromAnArray() throws {
        #expect(try ArrayResource().model(from: Data("[1,2,3]".utf8)) == [1, 2, 3])
    }

    @Test(arguments: ["{", "not json", "[1,", "{\"a\":}"])
    func invalidJSONIsAParsingError(text: String) {
        expectParsingError(CityNamesResource().result(from: Data(text.utf8)))
    }

    @Test func aTopLevelShapeTheResourceDoesNotHandleIsAParsingError() {
        expectParsingError(CityNamesResource().result(from: Data("[1,2]".utf8)))
        expectParsingError(ArrayResource().result(from: Data(#"{"a":1}"#.utf8)))
    }

    @Test func aFragmentIsAParsingError() {
        expectParsingError(ArrayResource().result(from: Data("42".utf8)))
    }

    @Test func aNilModelIsAParsingError() {
        expectParsingError(ArrayResource().result(from: Data(#"["a"]"#.utf8)))
    }

    @Test func anEmptyBodyIsAnEmptyResponseError() {
        let error = ArrayResource().result(from: Data(), statusCode: 200).failure
        guard case .emptyResponse(let status) = error else {
            Issue.record("expected emptyResponse, got \(String(describing: error))")
            return
        }
        #expect(status == 200)
    }

    @Test func aServiceLevelErrorIsReportedBeforeParsing() {
        let error = CityNamesResource().result(from: Data(#"{"error":"quota exceeded"}"#.utf8)).failure
        guard case .serviceLevel(let underlying) = error else {
            Issue.record("expected serviceLevel, got \(String(describing: error))")
            return
        }
        #expect(underlying as? CityNamesResource.ServiceError == .init(message: "quota exceeded"))
    }

    private func expectParsingError<Model>(_ result: Result<Model, ResourceError>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.failure?.caseName == "parsing", sourceLocation: sourceLocation)
    }
}

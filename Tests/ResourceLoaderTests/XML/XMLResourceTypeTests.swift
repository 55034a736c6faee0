import Foundation
import ResourceLoader
import Testing

@Suite("XMLResourceType and XMLDecodableResourceType")
struct XMLResourceTypeTests {
    @Test func buildsTheModelFromTheTree() throws {
        let fields = try TreeResource().model(from: try Fixtures.data("getUserDetails-response"))
        #expect(fields["firstName"] == "Fred")
        #expect(fields.count == 9)
    }

    @Test func aNilModelIsAParsingError() {
        let error = TreeResource().result(from: Data("<other/>".utf8)).failure
        #expect(error?.caseName == "parsing")
    }

    @Test func theDefaultModelIsNil() {
        struct Unimplemented: XMLResourceType { typealias Model = Int }
        #expect(Unimplemented().result(from: Data("<a>1</a>".utf8)).failure?.caseName == "parsing")
    }

    @Test func anEmptyBodyIsAnEmptyResponse() {
        #expect(TreeResource().result(from: Data(), statusCode: 200).failure?.statusCode == 200)
        #expect(TreeResource().result(from: Data()).failure?.caseName == "emptyResponse")
    }

    @Test func refusedDocumentsCarryTheXMLParsingError() throws {
        let error = try #require(TreeResource().result(from: Data("<!DOCTYPE a><a/>".utf8)).failure)
        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(failure.underlying as? XMLParsingError == .doctypeNotAllowed)
        #expect(error.description.contains("DOCTYPE"))
    }

    @Test func theResourcesLimitsApply() throws {
        var resource = TreeResource()
        resource.xmlParsingOptions = XMLParsingOptions(maximumDepth: 2)
        guard case .parsing(let failure) = try #require(resource.result(from: try Fixtures.data("getUserDetails-response")).failure) else {
            Issue.record("expected parsing")
            return
        }
        #expect(failure.underlying as? XMLParsingError == .tooDeep(limit: 2))
    }

    @Test func aResourceErrorFromTheFactoryPassesThrough() {
        struct Picky: XMLResourceType {
            func model(from document: XMLTree) throws -> String? {
                throw ResourceError.serviceLevel(CocoaError(.featureUnsupported))
            }
        }
        #expect(Picky().result(from: Data("<a/>".utf8)).failure?.caseName == "serviceLevel")
    }

    @Test func decodesTheModelAtThePath() throws {
        #expect(try DecodedUserResource().model(from: try Fixtures.data("getUserDetails-response")) == .fred)
    }

    @Test func decodesTheRootByDefaultAndMapsARoot() throws {
        struct Count: XMLDecodableResourceType { typealias Model = Int }
        #expect(try Count().model(from: Data("<n> 12 </n>".utf8)) == 12)

        struct Names: XMLDecodableResourceType {
            struct Root: Decodable { let name: [String] }
            var elementPath: [String] { ["people"] }
            func model(from root: Root) -> String { root.name.joined(separator: ", ") }
        }
        #expect(try Names().model(from: Data("<r><people><name>A</name><name>B</name></people></r>".utf8)) == "A, B")
    }

    @Test func decodingErrorsNameThePathFromTheRoot() throws {
        let data = Data(try Fixtures.string("getUserDetails-response").replacingOccurrences(of: "<city>London</city>", with: "").utf8)
        let error = try #require(DecodedUserResource().result(from: data).failure)
        guard case .parsing(let failure) = error else {
            Issue.record("expected parsing, got \(error)")
            return
        }
        #expect(failure.codingPath == "Body.getUserDetailsResponse.getUserDetails.userModel.city")
    }

    @Test func theResourcesDecoderIsUsed() throws {
        struct Event: Decodable, Sendable { let at: Date }
        struct Events: XMLDecodableResourceType {
            typealias Model = Event
            var xmlDecoder: XMLTreeDecoder { XMLTreeDecoder(dateDecodingStrategy: .secondsSince1970) }
        }
        #expect(try Events().model(from: Data("<e><at>60</at></e>".utf8)).at == Date(timeIntervalSince1970: 60))
    }
}

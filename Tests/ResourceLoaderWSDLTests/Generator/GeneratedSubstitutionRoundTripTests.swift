import Foundation
import ResourceLoader
import ResourceLoaderWSDL
import Testing

/// The code generated from ``GeneratorSnippets/substitutionGroups``, checked in under
/// `Generated/`: first that it is the generator's current output, then that its values go
/// through the library's `XMLTreeEncoder` and `XMLTreeDecoder` (and a SOAP envelope) and come
/// back equal, each member written and read by its own name, with `xsi:type` both ways.
@Suite("Generated code: substitution groups and derived header blocks")
struct GeneratedSubstitutionRoundTripTests {
    /// The folder of the checked-in generated files.
    static let generatedFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Generated")

    static let schemaInstance = "http://www.w3.org/2001/XMLSchema-instance"

    @Test func theCheckedInFilesAreWhatTheGeneratorMakes() throws {
        let output = try GeneratorSnippets.generate(GeneratorSnippets.substitutionGroups)
        // Set RESOURCELOADER_REGENERATE=1 to write the files again.
        let regenerate = ProcessInfo.processInfo.environment["RESOURCELOADER_REGENERATE"] == "1"
        for file in output.files {
            let url = Self.generatedFolder.appendingPathComponent(file.name)
            guard file.contents.contains("\nstruct ") || file.contents.contains("\nenum ") else {
                // The Types files a small service leaves empty are not checked in.
                #expect(!FileManager.default.fileExists(atPath: url.path), "\(file.name) is empty and should not be checked in")
                continue
            }
            if regenerate { try Data(file.contents.utf8).write(to: url) }
            let checkedIn = try String(contentsOf: url, encoding: .utf8)
            #expect(checkedIn == file.contents, "Generated/\(file.name) differs from the generator's output; run this test with RESOURCELOADER_REGENERATE=1")
        }
    }

    /// A drawing with every kind of member: a derived class sent where its member's type is
    /// declared (`xsi:type`), an element of another namespace, a member without a type of its
    /// own, a member of a nested group, and a head in a choice.
    /// Made on each use: a static value would outlive the tests, and the leak checker reports it.
    static var drawing: Drawing {
        Drawing(
        title: "A <&> B",
        shape: [
            .circle(Ball(label: "ball", radius: 1.5, bounces: true)),
            .ellipse(Circle(label: "oval", radius: 2)),
            .square(Square(label: "box", side: 3)),
            .circle(Circle(label: "ring", radius: 0.25)),
        ],
        vehicle: .car("Mini"),
        note: .postIt("milk"),
        ride: Ride(choice: .truck("T-1")))
    }

    @Test func aValueRoundTripsWithEachMemberWrittenByItsOwnName() throws {
        // WHEN the drawing is encoded
        let data = try XMLTreeEncoder().encode(Self.drawing, as: XMLQualifiedName("drawing", namespaceURI: "urn:test"))
        let root = try XMLTree(data: data).root
        // THEN each member is its own element, in order, in its own namespace, with xsi:type for
        // the derived class
        #expect(root.children.map(\.name) == ["title", "circle", "ellipse", "square", "circle", "car", "postIt", "ride"])
        #expect(root.children.map(\.namespaceURI) == ["urn:test", "urn:test", "urn:other", "urn:test", "urn:test", "urn:test", "urn:test", "urn:test"])
        let ball = root.children[1]
        let typeName = try #require(ball.attribute(named: "type", namespaceURI: Self.schemaInstance))
        let prefix = typeName.split(separator: ":").first.map(String.init)
        #expect(typeName.hasSuffix(":Ball") && ball.namespaceURI(forPrefix: prefix) == "urn:test")
        #expect(root.children[2].attribute(named: "type", namespaceURI: Self.schemaInstance) == nil)
        #expect(root.children[7].children.map(\.name) == ["truck"])
        // AND it reads back equal, the ball as a Ball
        let decoded = try DerivedTypes.decoder.decode(Drawing.self, from: root)
        #expect(decoded == Self.drawing)
        guard case .circle(let first) = decoded.shape.first else {
            Issue.record("the first shape is not a circle")
            return
        }
        #expect(first is Ball)
    }

    @Test func everyElementOfAGroupIsReadByItsOwnName() throws {
        // GIVEN documents that use the head itself, a member, and a member of a nested group
        let cases: [(xml: String, vehicle: VehicleGroup?, note: NoteGroup)] = [
            ("<vehicle>bus</vehicle><note>a</note>", .vehicle("bus"), .note("a")),
            ("<truck>t</truck><memo>b</memo>", .truck("t"), .memo("b")),
            ("<sketch>c</sketch>", nil, .sketch("c")),
        ]
        for item in cases {
            let xml = """
                <d:drawing xmlns:d="urn:test" xmlns="urn:test"><title>x</title>\(item.xml)<ride><walk>true</walk></ride></d:drawing>
                """
            // WHEN each is decoded
            let drawing = try DerivedTypes.decoder.decode(Drawing.self, from: Data(xml.utf8))
            // THEN the case is the element's
            #expect(drawing.shape.isEmpty)
            #expect(drawing.vehicle == item.vehicle)
            #expect(drawing.note == item.note)
            #expect(drawing.ride.choice == .walk(true))
        }
    }

    @Test func anAbstractHeadIsNotReadAsAMember() throws {
        // GIVEN a drawing whose shape is the abstract head itself, which no case stands for
        let xml = "<drawing xmlns=\"urn:test\"><title>x</title><shape><label>l</label></shape><note>n</note><ride><walk>false</walk></ride></drawing>"
        // THEN it is not taken for a member: the drawing has no shapes
        let drawing = try DerivedTypes.decoder.decode(Drawing.self, from: Data(xml.utf8))
        #expect(drawing.shape.isEmpty)
    }

    @Test func headerBlocksOfDerivedTypesRoundTripThroughTheEnvelope() throws {
        // GIVEN a call whose header block is a derived class where the abstract Shape is declared
        let call = Draw(DrawType(drawing: Self.drawing), pen: Square(label: "nib", side: 1))
        // WHEN its envelope is written and read back
        let envelope = try XMLTree(data: try call.envelope.data()).root
        let header = try #require(envelope.children.first { $0.name == "Header" })
        let pen = try #require(header.children.first)
        // THEN the block carries xsi:type and reads back as the derived class, and the body as
        // the request
        #expect(pen.name == "pen" && pen.namespaceURI == "urn:test")
        #expect(pen.attribute(named: "type", namespaceURI: Self.schemaInstance)?.hasSuffix(":Square") == true)
        let readPen = try call.xmlDecoder.decode(Shape.self, from: pen)
        #expect(readPen == Square(label: "nib", side: 1))
        #expect(readPen is Square)
        let body = try #require(envelope.children.first { $0.name == "Body" }?.children.first)
        #expect(try call.xmlDecoder.decode(DrawType.self, from: body) == DrawType(drawing: Self.drawing))
    }

    @Test func aResponseHeaderBlockOfADerivedTypeIsReadIntoTheModel() throws {
        // GIVEN a response whose stamp block is a Ball where Shape is declared
        let stamp = try XMLTreeEncoder().encode(
            Ball(label: "s", radius: 3, bounces: false) as Shape, as: XMLQualifiedName("stamp", namespaceURI: "urn:test"))
        let body = try XMLTreeEncoder().encode(DrawResponse(drawing: Self.drawing), as: XMLQualifiedName("DrawResponse", namespaceURI: "urn:test"))
        let response = """
            <soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Header>\(Self.fragment(stamp))</soapenv:Header>\
            <soapenv:Body>\(Self.fragment(body))</soapenv:Body></soapenv:Envelope>
            """
        // WHEN the resource makes its model
        let call = Draw(DrawType(drawing: Self.drawing))
        let model = try #require(try call.model(from: XMLTree(data: Data(response.utf8))))
        // THEN the body and the block are read, the block as the derived class
        #expect(model.body == DrawResponse(drawing: Self.drawing))
        #expect(model.stamp == Ball(label: "s", radius: 3, bounces: false))
        #expect(model.stamp.map { $0 is Ball } == true)
    }

    @Test func aBarePartThatIsAHeadIsSentAsTheChosenMember() throws {
        for (shape, name, namespace) in [
            (ShapeGroup.square(Square(label: "box", side: 3)), "square", "urn:test"),
            (.ellipse(Circle(label: "oval", radius: 2)), "ellipse", "urn:other"),
            (.circle(Ball(label: "ball", radius: 1, bounces: false)), "circle", "urn:test"),
        ] {
            // GIVEN a call whose part is declared as the abstract head `shape`
            let call = Paint(PaintBody(shape: shape))
            // WHEN its envelope is written
            let envelope = try XMLTree(data: try call.envelope.data()).root
            let body = try #require(envelope.children.first { $0.name == "Body" })
            // THEN the body's one element is the member, in its namespace, and reads back equal
            #expect(body.children.map(\.name) == [name])
            #expect(body.children.first?.namespaceURI == namespace)
            #expect(try call.xmlDecoder.decode(PaintBody.self, from: body) == PaintBody(shape: shape))
        }
    }

    @Test func aBareResponsePartThatIsAHeadIsReadByTheElementTheResponseHas() throws {
        let call = Paint(PaintBody(shape: .square(Square(label: "s", side: 1))))
        for (element, note) in [("note", NoteGroup.note("a")), ("memo", .memo("b")), ("postIt", .postIt("c")), ("sketch", .sketch("d"))] {
            // GIVEN a response whose body holds the head or a member of its group
            let response = """
                <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>\
                <\(element) xmlns="urn:test">\(note.text)</\(element)></s:Body></s:Envelope>
                """
            // WHEN the resource makes its model
            let model = try call.model(from: XMLTree(data: Data(response.utf8)))
            // THEN the case is the element's
            #expect(model == PaintResponseBody(note: note))
        }
        // AND a body with an element of no case of the group is a typed parsing error, not a model
        let stranger = """
            <s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><draft xmlns="urn:test">x</draft></s:Body></s:Envelope>
            """
        #expect {
            _ = try call.model(from: XMLTree(data: Data(stranger.utf8)))
        } throws: { error in
            guard case .parsing = error as? ResourceError else { return false }
            return true
        }
    }

    /// An encoded document without its XML declaration, to put inside another.
    static func fragment(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return text }
        return String(text[end.upperBound...])
    }
}

extension NoteGroup {
    /// The text of the element, whichever it is.
    fileprivate var text: String {
        switch self {
        case .note(let text), .memo(let text), .postIt(let text), .sketch(let text): text
        }
    }
}

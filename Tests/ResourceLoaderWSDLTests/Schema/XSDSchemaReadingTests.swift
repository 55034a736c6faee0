import Foundation
import ResourceLoaderWSDL
import Testing

@Suite("XSD schema reading")
struct XSDSchemaReadingTests {
    @Test func readsANamedComplexTypeWithOccurrencesNillableDefaultAndFixed() throws {
        // GIVEN a global element of a named type with a sequence of local elements
        let document = try Snippet.readSchema(
            """
            <xsd:element name="Order" type="tns:OrderType"/>
            <xsd:complexType name="OrderType">
              <xsd:sequence>
                <xsd:element name="id" type="xsd:long"/>
                <xsd:element name="note" type="xsd:string" minOccurs="0" nillable="true" default="none"/>
                <xsd:element name="line" type="xsd:string" maxOccurs="unbounded"/>
                <xsd:element name="currency" type="xsd:string" fixed="EUR" maxOccurs="3"/>
              </xsd:sequence>
            </xsd:complexType>
            """)
        // THEN the element and type are there, with each local element's facts
        #expect(document.diagnostics.isEmpty)
        let element = try #require(document.schemas.element(named: Snippet.name("Order")))
        #expect(element.type == .named(Snippet.name("OrderType")))
        #expect(element.isGlobal)
        let type = try #require(document.schemas.complexType("OrderType"))
        let particles = try #require(type.particle?.term.particles)
        #expect(particles.map { $0.term.element?.name } == ["id", "note", "line", "currency"].map(Snippet.name))
        #expect(particles.map(\.minOccurs) == [1, 0, 1, 1])
        #expect(particles.map(\.maxOccurs) == [1, 1, nil, 3])
        #expect(particles[1].term.element?.isNillable == true)
        #expect(particles[1].term.element?.defaultValue == "none")
        #expect(particles[3].term.element?.fixedValue == "EUR")
        #expect(particles[0].term.element?.type?.builtIn == .long)
        #expect(particles[2].isRepeated && !particles[0].isRepeated && particles[1].isOptional)
    }

    @Test func readsAnAnonymousComplexTypeAndUnqualifiedLocalElements() throws {
        // GIVEN a schema that leaves local elements unqualified, but one local element says otherwise
        let document = try Snippet.readSchema(
            """
            <xsd:element name="Ping">
              <xsd:complexType>
                <xsd:sequence>
                  <xsd:element name="plain" type="xsd:string"/>
                  <xsd:element name="qualified" type="xsd:string" form="qualified"/>
                </xsd:sequence>
                <xsd:attribute name="a" type="xsd:int" use="required"/>
                <xsd:attribute name="b" type="xsd:int" form="qualified"/>
              </xsd:complexType>
            </xsd:element>
            """, schemaAttributes: "")
        let element = try #require(document.schemas.element(named: Snippet.name("Ping")))
        guard case .anonymous(.complex(let type)) = element.type else {
            Issue.record("expected an anonymous complex type, got \(String(describing: element.type))")
            return
        }
        // THEN the local names are in no namespace unless form says qualified
        let names = type.particle?.term.particles.compactMap { $0.term.element?.name }
        #expect(names == [QualifiedName(namespace: nil, name: "plain"), Snippet.name("qualified")])
        #expect(type.name == nil)
        guard case .attribute(let a) = type.attributes[0], case .attribute(let b) = type.attributes[1] else {
            Issue.record("expected two attribute declarations")
            return
        }
        #expect(a.name == QualifiedName(namespace: nil, name: "a") && a.use == .required && a.type?.builtIn == .int)
        #expect(b.name == Snippet.name("b") && b.use == .optional)
    }

    @Test func readsFormAndUseKeywordsWithWhiteSpaceAroundThem() throws {
        // GIVEN a schema whose elementFormDefault, form and use keywords have white space around
        // them, which XML Schema collapses in such values
        let document = try Snippet.readSchema(
            """
            <xsd:element name="Ping">
              <xsd:complexType>
                <xsd:sequence>
                  <xsd:element name="local" type="xsd:string"/>
                  <xsd:element name="plain" type="xsd:string" form=" unqualified "/>
                </xsd:sequence>
                <xsd:attribute name="a" type="xsd:int" use=" required"/>
                <xsd:attribute name="b" type="xsd:int" form="qualified "/>
              </xsd:complexType>
            </xsd:element>
            """, schemaAttributes: #"elementFormDefault=" qualified""#)
        let element = try #require(document.schemas.element(named: Snippet.name("Ping")))
        guard case .anonymous(.complex(let type)) = element.type else {
            Issue.record("expected an anonymous complex type, got \(String(describing: element.type))")
            return
        }
        // THEN they are read as the keywords they are
        let names = type.particle?.term.particles.compactMap { $0.term.element?.name }
        #expect(names == [Snippet.name("local"), QualifiedName(namespace: nil, name: "plain")])
        guard case .attribute(let a) = type.attributes[0], case .attribute(let b) = type.attributes[1] else {
            Issue.record("expected two attribute declarations")
            return
        }
        #expect(a.use == .required)
        #expect(b.name == Snippet.name("b"))
    }

    @Test func readsNestedChoiceAllAndGroupsWithTheirOccurrences() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:group name="Contact">
              <xsd:choice>
                <xsd:element name="email" type="xsd:string"/>
                <xsd:element name="phone" type="xsd:string"/>
              </xsd:choice>
            </xsd:group>
            <xsd:attributeGroup name="Audit">
              <xsd:attribute name="createdBy" type="xsd:string"/>
            </xsd:attributeGroup>
            <xsd:complexType name="Person">
              <xsd:sequence>
                <xsd:choice maxOccurs="unbounded">
                  <xsd:element name="nickname" type="xsd:string"/>
                  <xsd:sequence>
                    <xsd:element name="first" type="xsd:string"/>
                    <xsd:element name="last" type="xsd:string"/>
                  </xsd:sequence>
                </xsd:choice>
                <xsd:group ref="tns:Contact" minOccurs="0"/>
              </xsd:sequence>
              <xsd:attributeGroup ref="tns:Audit"/>
            </xsd:complexType>
            <xsd:complexType name="Address">
              <xsd:all>
                <xsd:element name="city" type="xsd:string"/>
                <xsd:element name="zip" type="xsd:string" minOccurs="0"/>
              </xsd:all>
            </xsd:complexType>
            """)
        #expect(document.diagnostics.isEmpty)
        let person = try #require(document.schemas.complexType("Person"))
        let outer = try #require(person.particle?.term.particles)
        guard case .choice(let alternatives) = outer[0].term, case .group(let group) = outer[1].term else {
            Issue.record("expected a choice then a group reference, got \(outer)")
            return
        }
        #expect(outer[0].maxOccurs == nil)
        #expect(alternatives.count == 2)
        if case .sequence(let names) = alternatives[1].term { #expect(names.count == 2) } else { Issue.record("expected a nested sequence") }
        #expect(group == Snippet.name("Contact") && outer[1].minOccurs == 0)
        #expect(person.attributes == [.group(Snippet.name("Audit"))])
        guard case .choice(let contact) = try #require(document.schemas.groups[Snippet.name("Contact")]).particle.term else {
            Issue.record("expected the group to be a choice")
            return
        }
        #expect(contact.count == 2)
        #expect(document.schemas.attributeGroups[Snippet.name("Audit")]?.attributes.count == 1)
        guard case .all(let all) = try #require(document.schemas.complexType("Address")?.particle?.term) else {
            Issue.record("expected an all")
            return
        }
        #expect(all.map(\.minOccurs) == [1, 0])
    }

    @Test func readsSimpleAndComplexContentDerivations() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:complexType name="Amount">
              <xsd:simpleContent>
                <xsd:extension base="xsd:decimal">
                  <xsd:attribute name="currency" type="xsd:string" use="required"/>
                </xsd:extension>
              </xsd:simpleContent>
            </xsd:complexType>
            <xsd:complexType name="ShortCode">
              <xsd:simpleContent>
                <xsd:restriction base="tns:Code"><xsd:maxLength value="3"/></xsd:restriction>
              </xsd:simpleContent>
            </xsd:complexType>
            <xsd:complexType name="Code">
              <xsd:simpleContent><xsd:extension base="xsd:string"/></xsd:simpleContent>
            </xsd:complexType>
            <xsd:complexType name="Base">
              <xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Derived">
              <xsd:complexContent mixed="true">
                <xsd:extension base="tns:Base">
                  <xsd:sequence><xsd:element name="extra" type="xsd:string"/></xsd:sequence>
                  <xsd:attribute name="flag" type="xsd:boolean"/>
                </xsd:extension>
              </xsd:complexContent>
            </xsd:complexType>
            <xsd:complexType name="Restricted">
              <xsd:complexContent>
                <xsd:restriction base="tns:Base">
                  <xsd:sequence><xsd:element name="id" type="xsd:int"/></xsd:sequence>
                </xsd:restriction>
              </xsd:complexContent>
            </xsd:complexType>
            """)
        #expect(document.diagnostics.isEmpty)
        let amount = try #require(document.schemas.complexType("Amount"))
        #expect(amount.derivation == XSDDerivation(method: .extension, content: .simple, base: Snippet.xsd("decimal")))
        #expect(amount.attributes.count == 1)
        #expect(document.schemas.complexType("ShortCode")?.derivation?.facets.maxLength == 3)
        let derived = try #require(document.schemas.complexType("Derived"))
        #expect(derived.derivation == XSDDerivation(method: .extension, content: .complex, base: Snippet.name("Base")))
        #expect(derived.isMixed)
        #expect(derived.particle?.term.particles.first?.term.element?.name == Snippet.name("extra"))
        #expect(derived.attributes.count == 1)
        #expect(document.schemas.complexType("Restricted")?.derivation?.method == .restriction)
        #expect(document.schemas.typesDerived(from: Snippet.name("Base")).compactMap(\.name) == [Snippet.name("Derived"), Snippet.name("Restricted")])
    }

    @Test func readsAbstractTypesAndSubstitutionGroups() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:complexType name="Shape" abstract="true">
              <xsd:sequence><xsd:element name="label" type="xsd:string"/></xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Circle">
              <xsd:complexContent>
                <xsd:extension base="tns:Shape"><xsd:sequence><xsd:element name="radius" type="xsd:double"/></xsd:sequence></xsd:extension>
              </xsd:complexContent>
            </xsd:complexType>
            <xsd:element name="shape" type="tns:Shape" abstract="true"/>
            <xsd:element name="circle" type="tns:Circle" substitutionGroup="tns:shape"/>
            <xsd:element name="square" substitutionGroup="tns:shape"/>
            <xsd:complexType name="Drawing">
              <xsd:sequence><xsd:element ref="tns:shape" maxOccurs="unbounded"/></xsd:sequence>
            </xsd:complexType>
            """)
        #expect(document.diagnostics.isEmpty)
        #expect(document.schemas.complexType("Shape")?.isAbstract == true)
        #expect(document.schemas.element(named: Snippet.name("shape"))?.isAbstract == true)
        #expect(document.schemas.substitutionGroupMembers(of: Snippet.name("shape")).map(\.name) == [Snippet.name("circle"), Snippet.name("square")])
        #expect(document.schemas.element(named: Snippet.name("square"))?.type == nil)
        let drawing = try #require(document.schemas.complexType("Drawing")?.particle?.term.particles.first)
        #expect(drawing.term == .elementReference(Snippet.name("shape")))
        #expect(drawing.maxOccurs == nil)
    }

    @Test func readsEnumerationsListsUnionsAndFacets() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:simpleType name="Color">
              <xsd:annotation><xsd:documentation>A primary colour.</xsd:documentation></xsd:annotation>
              <xsd:restriction base="xsd:string">
                <xsd:enumeration value="red"><xsd:annotation><xsd:documentation>Like blood.</xsd:documentation></xsd:annotation></xsd:enumeration>
                <xsd:enumeration value="green"/>
              </xsd:restriction>
            </xsd:simpleType>
            <xsd:simpleType name="Colors"><xsd:list itemType="tns:Color"/></xsd:simpleType>
            <xsd:simpleType name="Sizes"><xsd:list><xsd:simpleType><xsd:restriction base="xsd:int"/></xsd:simpleType></xsd:list></xsd:simpleType>
            <xsd:simpleType name="ColorOrNumber">
              <xsd:union memberTypes="tns:Color xsd:int">
                <xsd:simpleType><xsd:restriction base="xsd:string"><xsd:pattern value="#[0-9a-f]{6}"/></xsd:restriction></xsd:simpleType>
              </xsd:union>
            </xsd:simpleType>
            <xsd:simpleType name="Price">
              <xsd:restriction base="xsd:decimal">
                <xsd:minInclusive value="0"/><xsd:maxExclusive value="1000"/>
                <xsd:totalDigits value="6"/><xsd:fractionDigits value="2"/>
              </xsd:restriction>
            </xsd:simpleType>
            """)
        #expect(document.diagnostics.isEmpty)
        let color = try #require(document.schemas.simpleType("Color"))
        #expect(color.enumerations == [.init(value: "red", documentation: "Like blood."), .init(value: "green")])
        #expect(color.documentation == "A primary colour.")
        #expect(document.schemas.simpleType("Colors")?.variety == .list(itemType: .named(Snippet.name("Color"))))
        guard case .list(.anonymous(.simple)) = try #require(document.schemas.simpleType("Sizes")).variety else {
            Issue.record("expected a list of an anonymous simple type")
            return
        }
        guard case .union(let members) = try #require(document.schemas.simpleType("ColorOrNumber")).variety else {
            Issue.record("expected a union")
            return
        }
        #expect(members.count == 3)
        #expect(members.prefix(2).map(\.name) == [Snippet.name("Color"), Snippet.xsd("int")])
        guard case .restriction(let base, let facets) = try #require(document.schemas.simpleType("Price")).variety else {
            Issue.record("expected a restriction")
            return
        }
        #expect(base.builtIn == .decimal)
        #expect(facets.minInclusive == "0" && facets.maxExclusive == "1000" && facets.totalDigits == 6 && facets.fractionDigits == 2)
    }

    @Test func readsWildcardsAndAnyType() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:complexType name="Extensible">
              <xsd:sequence>
                <xsd:element name="payload" type="xsd:anyType"/>
                <xsd:any namespace="##other" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
              </xsd:sequence>
              <xsd:anyAttribute processContents="skip"/>
            </xsd:complexType>
            <xsd:element name="untyped"/>
            """)
        #expect(document.diagnostics.isEmpty)
        let type = try #require(document.schemas.complexType("Extensible"))
        let particles = try #require(type.particle?.term.particles)
        #expect(particles[0].term.element?.type?.builtIn == .anyType)
        #expect(particles[1].term == .any(XSDWildcard(namespace: "##other", processContents: .lax)))
        #expect(particles[1].maxOccurs == nil && particles[1].minOccurs == 0)
        #expect(type.anyAttribute == XSDWildcard(namespace: "##any", processContents: .skip))
        #expect(document.schemas.element(named: Snippet.name("untyped"))?.type == nil)
    }

    @Test func readsRecursiveTypesWithoutDiagnostics() throws {
        // GIVEN a type that contains itself, directly and through another type
        let document = try Snippet.readSchema(
            """
            <xsd:complexType name="Node">
              <xsd:sequence>
                <xsd:element name="child" type="tns:Node" minOccurs="0" maxOccurs="unbounded"/>
                <xsd:element name="link" type="tns:Link" minOccurs="0"/>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Link"><xsd:sequence><xsd:element name="target" type="tns:Node"/></xsd:sequence></xsd:complexType>
            <xsd:element name="tree" type="tns:Node"/>
            """)
        #expect(document.diagnostics.isEmpty)
        #expect(document.schemas.complexType("Node")?.particle?.term.particles.first?.term.element?.type == .named(Snippet.name("Node")))
    }

    @Test func diagnosesUnresolvedReferencesAndUndeclaredPrefixesAndReadsOn() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:complexType name="Broken">
              <xsd:sequence>
                <xsd:element name="a" type="tns:Missing"/>
                <xsd:element name="b" type="nope:Thing"/>
                <xsd:element ref="tns:ghost"/>
                <xsd:element name="c" type="xsd:notABuiltIn"/>
                <xsd:element name="d" type="xsd:string" maxOccurs="many"/>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:element name="fine" type="xsd:string"/>
            """)
        let base = "/wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:complexType[@name='Broken']/xsd:sequence"
        #expect(
            Set(document.diagnosticSummary) == [
                "error undeclaredPrefix \(base)/xsd:element[@name='b']",
                "error invalidAttribute \(base)/xsd:element[@name='d']",
                "error unresolvedReference \(base)/xsd:element[@name='a']",
                "error unresolvedReference \(base)/xsd:element",
                "error unresolvedReference \(base)/xsd:element[@name='c']",
            ])
        #expect(document.diagnostics.count == 5)
        #expect(document.diagnostics.allSatisfy { $0.location.file == "service.wsdl" })
        #expect(document.diagnostics.contains { $0.message.contains("{urn:test}Missing") })
        #expect(document.schemas.element(named: Snippet.name("fine")) != nil)
    }

    @Test func diagnosesRedefineAndDuplicates() throws {
        let document = try Snippet.read(
            Snippet.wsdl(
                Snippet.types(
                    """
                    <xsd:redefine schemaLocation="base.xsd"/>
                    <xsd:element name="dup" type="xsd:string"/>
                    <xsd:element name="dup" type="xsd:int"/>
                    """)),
            files: ["base.xsd": #"<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"><xsd:simpleType name="Base"><xsd:restriction base="xsd:string"/></xsd:simpleType></xsd:schema>"#])
        #expect(document.diagnostics.map(\.construct) == [.schemaRedefinition, .duplicateDefinition])
        #expect(document.diagnostics.map(\.severity) == [.error, .warning])
        #expect(document.schemas.element(named: Snippet.name("dup"))?.type?.builtIn == .string)
        // The redefined schema is read as an include: its components take the includer's namespace.
        #expect(document.schemas.simpleType("Base") != nil)
    }

    @Test func readsDocumentationOfElementsAndTypes() throws {
        let document = try Snippet.readSchema(
            """
            <xsd:element name="Documented" type="xsd:string">
              <xsd:annotation>
                <xsd:documentation>
                   First words.
                </xsd:documentation>
                <xsd:documentation>Second.</xsd:documentation>
              </xsd:annotation>
            </xsd:element>
            """)
        #expect(document.schemas.element(named: Snippet.name("Documented"))?.documentation == "First words.\n\nSecond.")
    }

    @Test func readsBooleansWrittenAsDigitsAndWithWhiteSpace() throws {
        // GIVEN nillable, abstract and mixed written as xs:boolean allows: 1 and 0, with white space
        let document = try Snippet.readSchema(
            """
            <xsd:element name="head" type="xsd:string" abstract="1"/>
            <xsd:complexType name="Shape" abstract=" true ">
              <xsd:sequence>
                <xsd:element name="name" type="xsd:string" nillable="1"/>
                <xsd:element name="size" type="xsd:int" nillable="0"/>
                <xsd:element name="note" type="xsd:string" nillable=" false"/>
              </xsd:sequence>
            </xsd:complexType>
            <xsd:complexType name="Text" mixed="1"><xsd:sequence><xsd:element name="b" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Plain" mixed="0"><xsd:sequence><xsd:element name="b" type="xsd:string"/></xsd:sequence></xsd:complexType>
            <xsd:complexType name="Derived" mixed="1">
              <xsd:complexContent mixed="0"><xsd:extension base="tns:Plain"/></xsd:complexContent>
            </xsd:complexType>
            """)
        // THEN 1 is true and 0 is false, and nothing is diagnosed
        #expect(document.diagnostics.isEmpty)
        #expect(document.schemas.element(named: Snippet.name("head"))?.isAbstract == true)
        let shape = try #require(document.schemas.complexType("Shape"))
        #expect(shape.isAbstract)
        #expect(shape.particle?.term.particles.map { $0.term.element?.isNillable } == [true, false, false])
        #expect(document.schemas.complexType("Text")?.isMixed == true)
        #expect(document.schemas.complexType("Plain")?.isMixed == false)
        // AND complexContent's mixed decides over its complexType's
        #expect(document.schemas.complexType("Derived")?.isMixed == false)
    }

    @Test func diagnosesABooleanThatIsNeitherTrueNorFalse() throws {
        // GIVEN an element whose nillable is not an xs:boolean
        let document = try Snippet.readSchema(#"<xsd:element name="e" type="xsd:string" nillable="yes"/>"#)
        // THEN it is diagnosed and read as false
        #expect(document.diagnosticSummary == [
            "error invalidAttribute /wsdl:definitions[@name='Test']/wsdl:types/xsd:schema/xsd:element[@name='e']",
        ])
        #expect(document.diagnostics.first?.message.contains(#"nillable="yes""#) == true)
        #expect(document.schemas.element(named: Snippet.name("e"))?.isNillable == false)
    }
}

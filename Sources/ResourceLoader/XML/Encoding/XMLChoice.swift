/// A type that stands for an XML Schema `choice`: one of several elements, written in place of
/// the property that holds it, without a wrapper element of its own.
///
/// Make the choice an enum whose cases are the choice's elements. Swift's synthesized `Codable`
/// does: a case with one unlabelled value writes that value as the case's element, and a case
/// with no value writes an empty element.
///
/// ```swift
/// enum Payment: Codable, XMLChoice {
///     case card(Card)        // <card>…</card>
///     case iban(String)      // <iban>DE44…</iban>
///     case cash              // <cash/>
/// }
///
/// struct Checkout: Codable {
///     let total: Decimal
///     let payment: Payment   // <total>…</total><card>…</card>, no <payment>
/// }
/// ```
///
/// ``XMLTreeDecoder`` reads a choice from the element that holds its property: the case is the
/// child element whose name is one of the enum's coding keys. An optional choice is `nil` when
/// none of them is there.
///
/// An array of choices (a choice or a substitution group with `maxOccurs` above 1) is written
/// the same way, each item as its case's element, in order, in place of the property; it is
/// read back from every child of the holder whose name is one of the enum's coding keys, in
/// document order, and is empty when there is none:
///
/// ```swift
/// struct Wallet: Codable {
///     let owner: String
///     let payments: [Payment]   // <owner>…</owner><card>…</card><cash/><iban>…</iban>
/// }
/// ```
///
/// A choice that also conforms to ``XMLSchemaType`` describes its cases' elements by their
/// coding keys, as a type describes its properties: their namespace (``XMLTypeSchema/namespace``
/// with ``XMLTypeSchema/elementForm``, or a field's own namespace or form), and which hold
/// `xs:hexBinary` (``XMLTypeSchema/Field/isHexBinary``). A choice without one writes its elements
/// in the namespace of the element that holds it, as the encoder's
/// ``XMLTreeEncoder/elementFormDefault`` says (unqualified in rpc/literal). Either way, a choice is
/// read by its elements' local names.
///
/// A marker with no requirements; like ``XMLSchemaType`` it does not refine `Sendable`, so
/// that a choice may hold values of a class hierarchy.
public protocol XMLChoice {}

import Foundation
import ResourceLoader
import XMLCoder

// The `soap` group: a typed SOAP request body of 10,000 records, encoded by ResourceLoader's
// `XMLTreeEncoder` (through `SOAPEnvelope(body:)`), by a hand-written `SOAPParameters` build of
// the same body (through `SOAPEnvelope(parameters:)`), and by XMLCoder's `XMLEncoder`; and the
// typed body's round trip (encode, then decode with `XMLTreeDecoder`), counted in allocations.

/// One record of the request: the kinds of value a WSDL's types carry.
struct OrderLine: Codable, Equatable {
    let sku: String
    let quantity: Int
    let price: Decimal
    let weight: Double
    let gift: Bool
    let note: String

    static func make(_ index: Int) -> OrderLine {
        OrderLine(
            sku: "SKU-\(index)", quantity: index % 97, price: Decimal(index) / 100 + 1, weight: Double(index % 1000) / 8,
            gift: index % 3 == 0, note: index % 10 == 0 ? "fragile <glass> & \"china\"" : "standard")
    }
}

/// The operation element: `<placeOrder><line>…</line>…</placeOrder>`.
struct PlaceOrder: Codable, Equatable {
    let customer: String
    let line: [OrderLine]
}

let soapOperationNamespace = "urn:example:orders"

/// The typed body through `XMLTreeEncoder`, as a `SOAPResourceType` with a `soapBody` sends it.
func encodeTyped(_ order: PlaceOrder) throws -> Data {
    try SOAPEnvelope(operation: "placeOrder", operationNamespace: soapOperationNamespace, body: order).data()
}

/// The same envelope from `SOAPParameters` built by hand, as code that predates typed bodies
/// writes it: every value turned into its text first.
func encodeParameters(_ order: PlaceOrder) throws -> Data {
    var parameters = SOAPParameters()
    parameters.append("customer", .text(order.customer))
    for line in order.line {
        var fields = SOAPParameters()
        fields.append("sku", .text(line.sku))
        fields.append("quantity", .text(String(line.quantity)))
        fields.append("price", .text(line.price.description))
        fields.append("weight", .text(String(line.weight)))
        fields.append("gift", .text(line.gift ? "true" : "false"))
        fields.append("note", .text(line.note))
        parameters.append("line", .elements(fields))
    }
    return try SOAPEnvelope(operation: "placeOrder", operationNamespace: soapOperationNamespace, parameters: parameters).data()
}

/// The operation element through XMLCoder's encoder (no envelope: XMLCoder writes documents,
/// not SOAP envelopes, so it is spared the envelope's two elements).
func encodeXMLCoder(_ order: PlaceOrder) throws -> Data {
    let encoder = XMLEncoder()
    return try encoder.encode(order, withRootKey: "placeOrder", rootAttributes: ["xmlns": soapOperationNamespace])
}

/// Encodes with `XMLTreeEncoder`, then decodes the operation element back.
func roundTripTyped(_ order: PlaceOrder) throws -> PlaceOrder {
    let data = try encodeTyped(order)
    return try XMLTreeDecoder().decode(PlaceOrder.self, from: data, atPath: ["Body", "placeOrder"])
}

func runSOAPEncoding(_ recorder: Recorder, quick: Bool) throws {
    let count = 10_000
    let order = PlaceOrder(customer: "Ada <&> Lovelace", line: (0..<count).map(OrderLine.make))
    // Each contender's output must hold the same records before anything is timed.
    let typed = try encodeTyped(order)
    let handWritten = try encodeParameters(order)
    let coder = try encodeXMLCoder(order)
    guard try roundTripTyped(order) == order else { throw HarnessError("the typed body does not decode back to the same order") }
    let fromParameters = try XMLTreeDecoder().decode(PlaceOrder.self, from: handWritten, atPath: ["Body", "placeOrder"])
    guard fromParameters == order else { throw HarnessError("the SOAPParameters body does not decode to the same order") }
    let decoder = XMLDecoder()
    decoder.shouldProcessNamespaces = true
    // XMLCoder's decoder trims text by default, which would drop the note's spaces around `&`.
    decoder.trimValueWhitespaces = false
    // The check is on the records' text and integers: XMLCoder reads numbers back its own way.
    let fromCoder = try decoder.decode(PlaceOrder.self, from: coder)
    guard fromCoder.line.map(\.sku) == order.line.map(\.sku), fromCoder.line.map(\.quantity) == order.line.map(\.quantity),
        fromCoder.line.map(\.note) == order.line.map(\.note)
    else {
        let first = zip(fromCoder.line, order.line).first { $0.0 != $0.1 }
        throw HarnessError("XMLCoder's body does not decode to the same records: \(fromCoder.line.count) lines, first difference \(String(describing: first))")
    }
    log("soap: \(count) records; typed \(typed.count) bytes, SOAPParameters \(handWritten.count) bytes, XMLCoder \(coder.count) bytes")

    let names = (typed: "XMLTreeEncoder (typed body)", parameters: "hand-written SOAPParameters", coder: "XMLCoder XMLEncoder")
    let contenders = [
        Contender(name: names.typed) { try encodeTyped(order).count },
        Contender(name: names.parameters) { try encodeParameters(order).count },
        Contender(name: names.coder) { try encodeXMLCoder(order).count },
    ]
    let timings = try interleave(contenders, rounds: quick ? 3 : 7, sampleSeconds: quick ? 0.1 : 0.4)
    for (name, size) in [(names.typed, typed.count), (names.parameters, handWritten.count), (names.coder, coder.count)] {
        let timing = timings[name]!
        recorder.measurements.append(Measurement(
            group: "soap", scenario: "encode \(count) records", contender: name,
            secondsPerIteration: timing.secondsPerIteration, megabytesPerSecond: Double(size) / megabyte / timing.secondsPerIteration,
            allocationsPerIteration: timing.allocations, allocationsPerRecord: timing.allocations.map { $0 / Double(count) },
            allocatedMegabytesPerIteration: timing.allocatedBytes.map { $0 / megabyte }))
    }
    let versusParameters = pairedSpeedRatio(timings[names.typed]!.samples, timings[names.parameters]!.samples)
    recorder.target("soap.encoder_vs_soapparameters", ratio: versusParameters.ratio, atLeast: 1.5,
                    detail: "speed ratio encoding a \(count)-record typed SOAP body, XMLTreeEncoder vs a hand-written SOAPParameters build of the same envelope (median of per-round ratios; \(versusParameters.spread))")
    let versusCoder = pairedSpeedRatio(timings[names.typed]!.samples, timings[names.coder]!.samples)
    recorder.target("soap.encoder_vs_xmlcoder", ratio: versusCoder.ratio, atLeast: 5,
                    detail: "speed ratio encoding a \(count)-record typed SOAP body, XMLTreeEncoder (whole envelope) vs XMLCoder's XMLEncoder (operation element only) (median of per-round ratios; \(versusCoder.spread))")

    // Round trip: allocations of one encode-then-decode, per record.
    let before = AllocationCount.current
    consume(try roundTripTyped(order).line.count)
    let after = AllocationCount.current
    let start = now()
    consume(try roundTripTyped(order).line.count)
    let seconds = Double(now() - start) / 1e9
    recorder.measurements.append(Measurement(
        group: "soap", scenario: "round trip \(count) records (encode, then decode)", contender: "XMLTreeEncoder + XMLTreeDecoder",
        secondsPerIteration: seconds,
        allocationsPerIteration: AllocationCount.isAvailable ? Double(after.allocations - before.allocations) : nil,
        allocationsPerRecord: AllocationCount.isAvailable ? Double(after.allocations - before.allocations) / Double(count) : nil,
        allocatedMegabytesPerIteration: AllocationCount.isAvailable ? Double(after.bytes - before.bytes) / megabyte : nil))
    if AllocationCount.isAvailable {
        log(String(format: "soap: round trip %.1f allocations per record", Double(after.allocations - before.allocations) / Double(count)))
    }
}

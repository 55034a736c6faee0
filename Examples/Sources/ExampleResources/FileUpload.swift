import Foundation
import ResourceLoader

/// Uploads a file with a caption as `multipart/form-data`: `POST <base>/uploads` → the
/// ``UploadReceipt`` the server answers with.
///
/// The file is read from disk while the body is sent, never held whole in memory. The form has
/// two parts: the text field `caption` and the file part `file`.
public struct FileUpload: NetworkResourceType, JSONDecodableResourceType {
    /// The receipt is the answer's whole JSON body.
    public typealias Model = UploadReceipt

    /// The upload endpoint.
    public let url: URL
    /// The file to send.
    public let file: URL
    /// The text of the `caption` field.
    public let caption: String
    /// The file part's `Content-Type`.
    public let contentType: String

    /// `POST`.
    public var httpMethod: HTTPMethod { .post }

    /// The form: `caption`, then `file` with the file's name.
    public var body: RequestBody? {
        get throws {
            var form = MultipartFormData()
            form.append(caption, named: "caption")
            try form.appendFile(at: file, named: "file", fileName: file.lastPathComponent, contentType: contentType)
            return try .multipart(form)
        }
    }

    /// Creates the upload of `file` to `url`.
    public init(url: URL, file: URL, caption: String, contentType: String = "application/octet-stream") {
        self.url = url
        self.file = file
        self.caption = caption
        self.contentType = contentType
    }
}

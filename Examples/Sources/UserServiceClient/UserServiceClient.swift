// The SOAP user service's client, generated at build time by ResourceLoader's
// ResourceLoaderWSDLPlugin from UserService.wsdl (with resourceloader-wsdl.json as its
// configuration): GetUserDetails, the resource of the operation getUserDetails, and the models
// GetUserDetailsType, GetUserDetailsResponse, UserDetails and UserModel. Nothing here is written
// by hand; compare ExampleResources' GetUserDetails, which is.

// The target is a header only: see include/CResourceLoaderZlib.h. SwiftPM needs one source file.

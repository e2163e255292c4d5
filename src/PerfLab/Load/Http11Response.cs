namespace PerfLab.Load;

/// <summary>What one exchange returned: the status code and the length of the body, which is counted, not kept.</summary>
internal readonly record struct Http11Response(int Status, long BodyBytes);

/// <summary>A response that is not HTTP/1.x as the generator understands it, or a connection closed mid-response.</summary>
internal sealed class Http11ProtocolException(string message) : IOException(message);

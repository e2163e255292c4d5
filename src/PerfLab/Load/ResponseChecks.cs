namespace PerfLab.Load;

/// <summary>
/// What a response must hold beyond a good status: the JSON values of --expect-json (or <c>check: json</c>). An array,
/// as a foreach over an interface would allocate per response.
/// </summary>
internal sealed class ResponseChecks(bool[] errorStatus, JsonExpectation[]? json)
{
    /// <summary>True when responses are checked at all, so their bodies must be kept.</summary>
    public bool KeepsBody => json is not null;

    /// <summary>A response whose status passed but whose body lacks an expected JSON value (or was cut at 16 MiB).</summary>
    public bool Fail(int status, Http11Connection connection) =>
        PassedStatus(status) && (connection.BodyTruncated || !Passes(connection.Body));

    /// <summary>A response whose status passed but whose whole body lacks an expected JSON value.</summary>
    public bool Fail(int status, ReadOnlySpan<byte> body) => PassedStatus(status) && !Passes(body);

    private bool PassedStatus(int status) => !errorStatus[Math.Min(status, ThreadRecorder.StatusSlots - 1)];

    private bool Passes(ReadOnlySpan<byte> body)
    {
        foreach (var check in json!)
        {
            if (!check.Matches(body))
            {
                return false;
            }
        }
        return true;
    }
}

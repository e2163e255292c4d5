using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>Requests beyond GET through the load engine, against a real Kestrel that keeps what it received.</summary>
public sealed class RequestTests
{
    private static LoadPlan Plan(RequestFeed feed, RequestSpec request, long count, int users = 3, bool http2 = false) =>
        new([new ScenarioPlan("post", new ClosedModel(users), feed) { MaxRequests = count, Request = request }],
            TimeSpan.FromSeconds(30), TimeSpan.Zero, TimeSpan.FromSeconds(5)) { Http2 = http2 };

    private static RequestSpec Post(string body, ResponseCheck? check = null, params KeyValuePair<string, string>[] headers) =>
        new() { Method = "POST", Body = RequestSpec.Utf8(body), Check = check, Headers = headers };

    private static ResponseCheck Expect(string? status, params string[] json) =>
        new(status is null ? null : StatusSet.Parse([status]), [.. json.Select(JsonExpectation.Parse)]);

    [Fact]
    public async Task RunAsync_PostWithPlaceholderInBody_EveryBodyArrivesWholeWithItsFeedValue()
    {
        await using var server = await TestServer.StartAsync();
        var pad = new string('x', 3000); // larger than a typical first segment: the body must be sent whole
        var feed = new RequestFeed(server.Url("/orders").ToString()) { Values = ["101", "202", "303"] };
        var request = Post($$$"""{"customer": {id}, "note": "{{{pad}}}", "again": {id}}""", Expect("201", "$.received"),
            new KeyValuePair<string, string>("X-Tenant", "t1"));

        var result = await LoadEngine.RunAsync(Plan(feed, request, count: 30));

        var s = Assert.Single(result.Scenarios);
        Assert.False(result.Incomplete, result.IncompleteReason);
        Assert.Equal(30, s.Requests);
        Assert.Equal(0, s.Errors.Total);
        var posted = server.Posted.ToList();
        Assert.Equal(30, posted.Count);
        // Circular order shared by all users: each value exactly 10 times, each body exactly as templated.
        foreach (var id in new[] { "101", "202", "303" })
        {
            var expected = $$$"""{"customer": {{{id}}}, "note": "{{{pad}}}", "again": {{{id}}}}""";
            Assert.Equal(10, posted.Count(p => p.Body == expected));
        }
        Assert.All(posted, p => Assert.Equal(RequestSpec.DefaultContentType, p.ContentType));
        Assert.All(posted, p => Assert.Equal("t1", p.Tenant));
        Assert.Equal("POST, 1 header, 3045-byte body, expects 201 and $.received", s.Request);
    }

    [Fact]
    public async Task RunAsync_JsonCheckOnlyOneValueOfFourHolds_CountsTheRestAsCheckJsonErrors()
    {
        await using var server = await TestServer.StartAsync();
        var feed = new RequestFeed(server.Url("/echo").ToString()) { Values = ["1", "2", "3", "4"] };
        var request = Post("""{"id": {id}, "items": [{"id": {id}}]}""", Expect(null, "$.items[0].id=2"));

        var result = await LoadEngine.RunAsync(Plan(feed, request, count: 40));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(40, s.Requests);
        Assert.Equal(30, s.Errors.Total);
        Assert.Equal(new Dictionary<string, long> { [ErrorCounts.CheckJsonKind] = 30 }, s.Errors.ByKind);
        // A failed check is still a response: its latency is recorded.
        Assert.Equal(40, s.Latency.Count);
    }

    [Fact]
    public async Task RunAsync_ExpectedStatusNotReturned_CountsTheStatusAsUnexpected()
    {
        await using var server = await TestServer.StartAsync();
        var request = Post("{}", Expect("201"));

        var result = await LoadEngine.RunAsync(Plan(RequestFeed.Single(server.Url("/echo?status=200").ToString()), request, count: 20));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(20, s.Errors.Total);
        Assert.Equal(new Dictionary<string, long> { ["unexpected-http-200"] = 20 }, s.Errors.ByKind);
    }

    [Fact]
    public async Task RunAsync_ExpectedErrorStatus_IsNotCountedAsAnError()
    {
        await using var server = await TestServer.StartAsync();
        var request = Post("{}", Expect("4xx"));

        var result = await LoadEngine.RunAsync(Plan(RequestFeed.Single(server.Url("/echo?status=409").ToString()), request, count: 20));

        Assert.Equal(0, Assert.Single(result.Scenarios).Errors.Total);
    }

    [Fact]
    public async Task RunAsync_JsonCheckOnAChunkedResponse_ReadsTheWholeDocument()
    {
        await using var server = await TestServer.StartAsync();
        var pass = new RequestSpec { Check = Expect("200", "$.total=42", "items[1].name=\"Bike\"") };
        var fail = new RequestSpec { Check = Expect(null, "$.items[1].id=7") };
        var url = RequestFeed.Single(server.Url("/json-chunked").ToString());

        var passed = await LoadEngine.RunAsync(Plan(url, pass, count: 12));
        var failed = await LoadEngine.RunAsync(Plan(url, fail, count: 12));

        Assert.Equal(0, Assert.Single(passed.Scenarios).Errors.Total);
        Assert.Equal(12, Assert.Single(failed.Scenarios).Errors.ByKind[ErrorCounts.CheckJsonKind]);
    }

    [Fact]
    public async Task RunAsync_PostOverHttp2_SendsTheSameBodiesAndChecks()
    {
        await using var server = await TestServer.StartAsync(http2Only: true);
        var feed = new RequestFeed(server.Url("/orders").ToString()) { Values = ["7", "8"] };
        var request = Post("""{"customer": {id}}""", Expect("201", "$.received=15"));

        var result = await LoadEngine.RunAsync(Plan(feed, request, count: 10, http2: true));

        var s = Assert.Single(result.Scenarios);
        Assert.Equal(0, s.Errors.Total);
        Assert.StartsWith("HttpClient, HTTP/2", result.Generator.Transport);
        Assert.Equal(5, server.Posted.Count(p => p.Body == """{"customer": 7}"""));
        Assert.Equal(5, server.Posted.Count(p => p.Body == """{"customer": 8}"""));
    }

    [Fact]
    public async Task RunAsync_BodyPlaceholderWithoutValues_IsAUsageError()
    {
        await using var server = await TestServer.StartAsync();

        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            LoadEngine.RunAsync(Plan(RequestFeed.Single(server.Url("/orders").ToString()), Post("""{"id": {id}}"""), count: 1)));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("the body has the placeholder {id} but no values fill it", ex.Message);
    }

    [Fact]
    public async Task RunAsync_ContentLengthHeaderGiven_IsAUsageErrorNamingIt()
    {
        await using var server = await TestServer.StartAsync();
        var request = Post("{}", null, new KeyValuePair<string, string>("Content-Length", "2"));

        var ex = await Assert.ThrowsAsync<PerfLabException>(() => LoadEngine.RunAsync(Plan(RequestFeed.Single(server.Url("/orders").ToString()), request, 1)));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("header 'Content-Length' is set by perflab", ex.Message);
    }
}

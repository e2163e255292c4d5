using System.Text;
using PerfLab.Common;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

public sealed class JsonExpectationTests
{
    private const string Document = """
        {"total": 42, "ratio": 0.5, "name": "Bike \"Pro\"", "ok": true, "none": null,
         "items": [{"id": 7, "tags": ["a", "b"]}, {"id": 8, "nested": {"deep": [1, 2, {"x": "y"}]}}], "last": "z"}
        """;

    [Theory]
    [InlineData("$.total=42", true)]
    [InlineData("total=42", true)]
    [InlineData("$.total=42.0", true)]
    [InlineData("$.total=43", false)]
    [InlineData("$.total=\"42\"", false)]
    [InlineData("$.ratio=0.5", true)]
    [InlineData("$.name=\"Bike \\\"Pro\\\"\"", false)]
    [InlineData("$.name=Bike \"Pro\"", true)]
    [InlineData("$.ok=true", true)]
    [InlineData("$.ok=false", false)]
    [InlineData("$.none=null", true)]
    [InlineData("$.none", true)]
    [InlineData("$.missing", false)]
    [InlineData("$.items[0].id=7", true)]
    [InlineData("items[1].id=8", true)]
    [InlineData("$.items[2].id", false)]
    [InlineData("$.items[0].tags[1]=b", true)]
    [InlineData("$.items[1].nested.deep[2].x=y", true)]
    [InlineData("$.items[1].nested.deep[2].x=z", false)]
    [InlineData("$.total.x", false)]
    [InlineData("$.items.id", false)]
    [InlineData("$.last=z", true)]
    public void Matches_PathAndValue_AgainstAKnownDocument(string expectation, bool expected)
    {
        Assert.Equal(expected, JsonExpectation.Parse(expectation).Matches(Encoding.UTF8.GetBytes(Document)));
    }

    [Theory]
    [InlineData("")]
    [InlineData("[42]")]
    [InlineData("not json")]
    public void Matches_InvalidJsonOrAnotherShape_IsAFailedCheckNotAnException(string body)
    {
        Assert.False(JsonExpectation.Parse("$.total=42").Matches(Encoding.UTF8.GetBytes(body)));
    }

    [Theory]
    [InlineData("$.a..b", "an empty property name")]
    [InlineData("$.a[x]", "an array index must be a whole number")]
    [InlineData("$.a[1", "an array index must be a whole number")]
    [InlineData("$.a=", "nothing after '='")]
    [InlineData("$a", "unexpected 'a'")]
    public void Parse_MalformedPath_IsAUsageErrorSayingWhy(string text, string message)
    {
        var ex = Assert.Throws<PerfLabException>(() => JsonExpectation.Parse(text));
        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains(message, ex.Message);
    }

    [Theory]
    [InlineData("201", 201, true)]
    [InlineData("201", 200, false)]
    [InlineData("200,201", 201, true)]
    [InlineData("2xx", 204, true)]
    [InlineData("2xx", 301, false)]
    [InlineData("2XX, 404", 404, true)]
    public void StatusSet_Contains_CodesAndClasses(string text, int status, bool expected)
    {
        Assert.Equal(expected, StatusSet.Parse([text]).Contains(status));
    }

    [Theory]
    [InlineData("99")]
    [InlineData("600")]
    [InlineData("6xx")]
    [InlineData("ok")]
    public void StatusSet_Parse_OutOfRange_IsAUsageError(string text)
    {
        Assert.Equal(ExitCode.Usage, Assert.Throws<PerfLabException>(() => StatusSet.Parse([text])).ExitCode);
    }

    [Fact]
    public void Whole_GetWithoutBody_IsExactlyTheBytesTheEngineAlwaysSent()
    {
        var bytes = RequestTemplate.Whole(RequestSpec.Get, new Uri("http://127.0.0.1:5000/a?b=1"));
        Assert.Equal("GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.1:5000\r\n\r\n", Encoding.ASCII.GetString(bytes));
    }

    [Fact]
    public void Whole_PostWithBodyAndHeaders_HasContentLengthOfTheBytesAndTheDefaultContentType()
    {
        var spec = new RequestSpec { Method = "POST", Body = Encoding.UTF8.GetBytes("{\"n\":\"é\"}"), Headers = [new("X-A", "1")] };
        var bytes = RequestTemplate.Whole(spec, new Uri("http://127.0.0.1:5000/o"));
        Assert.Equal("POST /o HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nX-A: 1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"n\":\"é\"}",
            Encoding.UTF8.GetString(bytes));
    }

    [Fact]
    public void For_BodyWithPlaceholder_WritesEachRequestIntoTheReusedBuffer()
    {
        var spec = new RequestSpec { Method = "PUT", Body = Encoding.UTF8.GetBytes("[{v},{v}]"), Headers = [new("Content-Type", "text/plain")] };
        var template = new RequestTemplate(spec, [new Uri("http://127.0.0.1:5000/x")], ["1", "22"], "v");
        var scratch = Array.Empty<byte>();

        var first = Encoding.UTF8.GetString(template.For(0, ref scratch).Span);
        var buffer = scratch;
        var second = Encoding.UTF8.GetString(template.For(1, ref scratch).Span);

        Assert.True(template.PerRequest);
        Assert.Equal(2, template.Count);
        Assert.Equal("PUT /x HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n[1,1]", first);
        Assert.EndsWith("Content-Length: 7\r\n\r\n[22,22]", second);
        Assert.Same(buffer, scratch);
    }
}

using System.Text;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments;

/// <summary>The experiment file's request keys (method, headers, body, body-file, expect) and its thresholds.</summary>
public sealed class RequestDefinitionTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-request-def-");

    public void Dispose() => _dir.Delete(recursive: true);

    private const string Template = """
        name: demo
        title: Demo
        seed: "000"
        reproduces: a table
        baseline: a
        variants:
          - name: a
            vars: { tenant: t1 }
          - name: b
            vars: { tenant: t2 }
        load:
          scenarios:
            - name: create
              url: __URL__
              feed: { placeholder: id, from: /ids }
        __REQUEST__
              model: closed
              users: 2
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 1 }
          quick: { warmup: 1s, duration: 2s, repeat: 1 }
          smoke: { warmup: 1s, duration: 2s, repeat: 1 }
        __THRESHOLDS__
        """;

    private ExperimentDefinition Load(string request, string thresholds = "", string url = "/orders/{id}")
    {
        var path = Path.Combine(_dir.FullName, "demo.yaml");
        File.WriteAllText(path, Template.Replace("__REQUEST__", request, StringComparison.Ordinal)
            .Replace("__THRESHOLDS__", thresholds, StringComparison.Ordinal).Replace("__URL__", url, StringComparison.Ordinal));
        return ExperimentLoader.LoadFile(path);
    }

    [Fact]
    public void Parse_PostWithHeadersBodyAndExpect_ReadsTheRequestAndFillsVariantVars()
    {
        var e = Load("""
                  method: post
                  headers: { X-Tenant: "${tenant}" }
                  body: '{"customer": {id}, "tenant": "${tenant}"}'
                  expect: { status: [201, 202], json: ["$.id", "$.ok=true"] }
            """);

        var request = e.Scenarios[0].Request;
        Assert.Equal("POST", request.Method);
        Assert.True(request.Check!.Statuses!.Contains(202));
        Assert.False(request.Check.Statuses.Contains(200));
        Assert.Equal(["$.id", "$.ok=true"], request.Check.Json.Select(j => j.Text));
        var plan = ScenarioPlans.BuildPlan(e, e.Variants[1], e.Profiles[ProfileName.Smoke], new Uri("http://127.0.0.1:5000"));
        var sent = plan.Scenarios[0].Request;
        Assert.Equal("""{"customer": {id}, "tenant": "t2"}""", Encoding.UTF8.GetString(sent.Body!));
        Assert.Equal(new KeyValuePair<string, string>("X-Tenant", "t2"), Assert.Single(sent.Headers));
        Assert.Equal("id", plan.Scenarios[0].Feed.Placeholder);
    }

    [Fact]
    public void Parse_BodyFile_IsReadRelativeToTheExperimentFile()
    {
        File.WriteAllBytes(Path.Combine(_dir.FullName, "order.json"), Encoding.UTF8.GetBytes("""{"customer": {id}}"""));

        var request = Load("      body-file: order.json").Scenarios[0].Request;

        Assert.Equal("POST", request.Method);
        Assert.Equal("""{"customer": {id}}""", Encoding.UTF8.GetString(request.Body!));
    }

    [Fact]
    public void Parse_Thresholds_AreReadInOrder()
    {
        var e = Load("      method: GET", "thresholds: [\"p99<250ms\", \"errors<1%\", no-worse, \"create: change>-5%\"]");

        Assert.Equal(["p99<250ms", "errors<1%", "no-worse", "create: change>-5%"], e.Thresholds.Select(t => t.Text));
        Assert.Equal("create", e.Thresholds[3].Scenario);
    }

    [Theory]
    [InlineData("      body-file: missing.json", "", "demo.yaml:16:18: body-file 'missing.json' does not exist")]
    [InlineData("      expect: { status: 299x }", "", "demo.yaml:16:25: expected status '299x' is not a status")]
    [InlineData("      expect: { json: \"$.a[b]\" }", "", "demo.yaml:16:23: JSON check '$.a[b]': an array index must be a whole number")]
    [InlineData("      expect: { }", "", "demo.yaml:16:15: expect needs status, json or both.")]
    [InlineData("      headers: { Content-Length: \"3\" }", "", "demo.yaml:16:16: header 'Content-Length' is set by perflab")]
    [InlineData("      method: GET", "thresholds: [\"p99<250\"]", "demo.yaml:23:13: threshold 'p99<250': a latency needs a unit")]
    [InlineData("      method: GET\n      body: x\n      body-file: y", "", "demo.yaml:18:18: give either body or body-file, not both.")]
    [InlineData("      method: GET", "thresholds: [\"nope: p99<1s\"]", "demo.yaml:23:13: threshold 'nope: p99<1s' names scenario 'nope', which is not one of create.")]
    public void Parse_MalformedRequestOrThreshold_NamesFileLineAndWhatWasExpected(string request, string thresholds, string message)
    {
        var ex = Assert.Throws<PerfLabException>(() => Load(request, thresholds));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains(message, ex.Message);
    }

    [Fact]
    public void Parse_FeedPlaceholderNeitherInUrlNorBody_IsAnError()
    {
        var ex = Assert.Throws<PerfLabException>(() => Load("      method: GET", url: "/orders"));

        Assert.Contains("the feed fills {id} but neither the url nor the body has that placeholder", ex.Message);
    }
}

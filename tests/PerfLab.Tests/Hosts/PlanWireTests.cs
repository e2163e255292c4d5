using PerfLab.Hosts;
using PerfLab.Load;

namespace PerfLab.Tests.Hosts;

/// <summary>The plan a generator reads is the plan the controller built: every model, request and limit read back as written.</summary>
public sealed class PlanWireTests
{
    [Fact]
    public void Read_WrittenPlanOfEveryEngineModel_GivesBackTheSamePlan()
    {
        var post = new RequestSpec
        {
            Method = "POST",
            Headers = [new("Content-Type", "application/json"), new("X-Trace", "{id}")],
            Body = RequestSpec.Utf8("{\"id\": {id}}"),
            Check = new ResponseCheck(StatusSet.Parse(["200,201"]), [JsonExpectation.Parse("$.id=5")]),
        };
        var plan = new LoadPlan(
        [
            new ScenarioPlan("closed", new ClosedModel(7), new RequestFeed("http://10.1.2.3:5000/orders/{id}")
            {
                Values = ["1", "2", "3"],
                Order = FeedOrder.Random,
                Seed = 9,
            }) { Request = post, MaxRequests = 500 },
            new ScenarioPlan("open", new OpenModel(250.5, 33), new RequestFeed("http://10.1.2.3:5000/delay?ms=150")
            {
                ValuesUrl = "http://10.1.2.3:5000/ids",
            }),
            new ScenarioPlan("ramp", new RampModel(2, 3, TimeSpan.FromMilliseconds(1500), 11), RequestFeed.Single("http://10.1.2.3:5000/")),
            new ScenarioPlan("burst", new BurstModel(16, 4, 2), RequestFeed.Single("http://10.1.2.3:5000/b")),
        ], TimeSpan.FromSeconds(12), TimeSpan.FromSeconds(3), TimeSpan.FromSeconds(30))
        {
            Http2 = true,
            AllowRemote = true,
            ConnectTimeout = TimeSpan.FromSeconds(2),
            WarmupUntilSteady = true,
        };

        var read = PlanWire.Read(PlanWire.Write(plan));

        Assert.Equal((plan.Duration, plan.Warmup, plan.Timeout, plan.ConnectTimeout), (read.Duration, read.Warmup, read.Timeout,
            read.ConnectTimeout));
        Assert.True(read.Http2 && read.AllowRemote && read.WarmupUntilSteady);
        Assert.Equal(plan.Scenarios.Select(s => s.Model), read.Scenarios.Select(s => s.Model));
        Assert.Equal(plan.Scenarios.Select(s => (s.Name, s.MaxRequests, s.Feed.UrlTemplate, s.Feed.ValuesUrl, s.Feed.Order, s.Feed.Seed)),
            read.Scenarios.Select(s => (s.Name, s.MaxRequests, s.Feed.UrlTemplate, s.Feed.ValuesUrl, s.Feed.Order, s.Feed.Seed)));
        Assert.Equal(["1", "2", "3"], read.Scenarios[0].Feed.Values!);
        var request = read.Scenarios[0].Request;
        Assert.Equal(post.Describe(), request.Describe());
        Assert.Equal(post.Headers, request.Headers);
        Assert.Equal(post.Body, request.Body);
        Assert.True(request.Check!.Statuses!.Contains(201) && !request.Check.Statuses.Contains(204));
        Assert.True(request.Check.Json[0].Matches("{\"id\":5}"u8));
        Assert.False(request.Check.Json[0].Matches("{\"id\":6}"u8));
        // A plain GET stays the engine's own, which results describe as no request shape at all.
        Assert.Same(RequestSpec.Get, read.Scenarios[1].Request);
    }

    [Fact]
    public void Apply_ShareOfAPlanReadBack_SplitsTheWholeAsTheControllersPlanWould()
    {
        var open = new ScenarioPlan("open", new OpenModel(300, 64), RequestFeed.Single("http://10.1.2.3/")) { MaxRequests = 1001 };
        var plan = new LoadPlan([open], TimeSpan.FromSeconds(5), TimeSpan.Zero, TimeSpan.FromSeconds(30));
        var line = PlanWire.Write(plan);

        var shares = Enumerable.Range(0, 3).Select(i => new LoadShare(i, 3).Apply(PlanWire.Read(line)).Scenarios[0]).ToList();

        Assert.All(shares, s => Assert.Equal(new OpenModel(100, 22), s.Model));
        Assert.Equal(1001, shares.Sum(s => s.MaxRequests));
        Assert.Equal(TimeSpan.FromSeconds(2 / 300.0), new LoadShare(2, 3).Phase(PlanWire.Read(line)));
    }

    [Fact]
    public void Read_NotAPlan_UsageErrorSayingWhatWasExpected()
    {
        var ex = Assert.Throws<PerfLab.Common.PerfLabException>(() => PlanWire.Read("[\"-R\", \"10\"]"));

        Assert.Equal(PerfLab.Common.ExitCode.Usage, ex.ExitCode);
        Assert.Contains("expected the load plan as one JSON line", ex.Message, StringComparison.Ordinal);
    }
}

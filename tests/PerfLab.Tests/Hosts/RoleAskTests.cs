using PerfLab.Hosts;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// A request the controller asks a role carries an id its answer echoes: an answer that arrives after its request's
/// timeout is not taken as the next request's (a window's two edges once read one snapshot of the db host's backends so,
/// and the run charged them 0 s of CPU). On a real process: a role played by bash, as a local host's session runs.
/// </summary>
public sealed class RoleAskTests
{
    [Fact]
    public async Task Ask_FirstAnswerArrivesAfterItsTimeout_SecondRequestGetsItsOwnAnswer()
    {
        // The role holds the first request's answer until the second request comes, then sends both: the late one first.
        await using var session = LocalRole.Start("db", "PostgreSQL",
            """
            echo 'ready x'; n=0
            while read -r line; do
              case "$line" in
                'backends-cpu #'*) n=$((n+1))
                  if [ $n -eq 2 ]; then echo 'backends-cpu #1 10=111'; echo "backends-cpu ${line#backends-cpu } 10=222"; fi;;
              esac
            done
            """);
        await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None);

        Assert.Null(session.Ask(RemoteBackendsCpu.Request, TimeSpan.FromMilliseconds(300)));
        Assert.Equal("10=222", session.Ask(RemoteBackendsCpu.Request, TimeSpan.FromSeconds(30)));
    }

    [Fact]
    public async Task Ask_RoleAnswersWithNothing_ReadsTheEmptyAnswer()
    {
        // A db host with no backend serving the app answers an empty list: an answer, not a timeout.
        await using var session = LocalRole.Start("db", "PostgreSQL",
            """echo 'ready x'; while read -r line; do case "$line" in 'backends-cpu #'*) echo "$line";; esac; done""");
        await session.WaitReadyAsync(TimeSpan.FromSeconds(30), CancellationToken.None);

        Assert.Equal("", session.Ask(RemoteBackendsCpu.Request, TimeSpan.FromSeconds(30)));
    }

    [Theory]
    [InlineData("cpu #7", "cpu", 7L)]
    [InlineData("db-settle #12", "db-settle", 12L)]
    public void Parse_RequestLine_KindAndId(string line, string kind, long id) =>
        Assert.Equal(new RoleAsk(kind, id), RoleAsk.Parse(line));

    [Theory]
    [InlineData("cpu")]
    [InlineData("alive")]
    [InlineData("counters {\"a\":1}")]
    [InlineData("cpu #x")]
    [InlineData("cpu #-1")]
    [InlineData("#3")]
    public void Parse_NotARequest_Null(string line) => Assert.Null(RoleAsk.Parse(line));

    [Fact]
    public async Task AppCounters_CpuRequest_AnswersWithItsIdAndThisProcessCpuClock()
    {
        // The real role's end: its answer echoes the request's id, then the process's CPU in nanoseconds.
        var output = new StringWriter();
        var counters = new AppCounters(Environment.ProcessId, new RoleLines(TextReader.Null, output));
        var ask = new RoleAsk(AppCounters.CpuRequest, 41);

        await counters.HandleAsync(ask.ToString());

        var answer = output.ToString().TrimEnd();
        Assert.StartsWith("cpu #41 ", answer, StringComparison.Ordinal);
        Assert.True(long.Parse(ask.AnswerIn(answer["cpu ".Length..])!, System.Globalization.CultureInfo.InvariantCulture) > 0, answer);
    }
}

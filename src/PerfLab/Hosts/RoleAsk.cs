using System.Globalization;

namespace PerfLab.Hosts;

/// <summary>
/// One request the controller asks a role and waits for (<see cref="RoleSession.Ask"/>): the line <c>KIND #ID</c>,
/// answered <c>KIND #ID ANSWER</c>. The id is the controller's count of its requests: an answer that came after its
/// request's timeout carries its own request's id and is never taken as the next one's (a window's two edges once read
/// one snapshot so). The role and the controller are one perflab version (the role is deployed by the controller).
/// </summary>
internal readonly record struct RoleAsk(string Kind, long Id)
{
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Kind} #{Id}");

    /// <summary>The request a role read, or null when <paramref name="line"/> is not one (another kind of line).</summary>
    public static RoleAsk? Parse(string line)
    {
        var space = line.IndexOf(" #", StringComparison.Ordinal);
        return space > 0 && long.TryParse(line.AsSpan(space + 2), NumberStyles.None, CultureInfo.InvariantCulture, out var id)
            ? new RoleAsk(line[..space], id)
            : null;
    }

    /// <summary>What follows the kind word of the role's answer to this request: <c>#ID ANSWER</c>.</summary>
    public string Answering(string answer) => string.Create(CultureInfo.InvariantCulture, $"#{Id} {answer}");

    /// <summary>The answer in <paramref name="rest"/> (what followed the kind word) when it answers this request; else null.</summary>
    public string? AnswerIn(string rest)
    {
        var tag = string.Create(CultureInfo.InvariantCulture, $"#{Id}");
        return rest == tag ? ""
            : rest.StartsWith(tag + " ", StringComparison.Ordinal) ? rest[(tag.Length + 1)..]
            : null;
    }
}

using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace PerfLab.Tests.Architecture;

/// <summary>How long one file or one method-like member is, in lines from its first token to its last.</summary>
internal sealed record SourceSize(string File, string Member, int Lines);

/// <summary>
/// Measures C# sources with Roslyn's syntax tree: each file's lines, and the span of every method, constructor,
/// destructor, operator, accessor (including expression-bodied properties and indexers), local function and the
/// top-level statements. Comments and blank lines inside a body count, as a reader has to scroll past them; the
/// leading doc comment does not, being trivia before the first token.
/// </summary>
internal static class SourceSizes
{
    public const string TopLevel = "<top-level statements>";

    public static int FileLines(string text) => SourceText(text).Lines.Count - (text.EndsWith('\n') ? 1 : 0);

    public static IEnumerable<SourceSize> Members(string file, string text)
    {
        var root = CSharpSyntaxTree.ParseText(text, path: file).GetRoot();
        foreach (var node in root.DescendantNodes())
        {
            if (Name(node) is { } name)
            {
                yield return new SourceSize(file, name, Lines(node));
            }
        }
        var statements = root.ChildNodes().OfType<GlobalStatementSyntax>().ToList();
        if (statements.Count > 0)
        {
            yield return new SourceSize(file, TopLevel, Lines(statements[0], statements[^1]));
        }
    }

    private static string? Name(SyntaxNode node) => node switch
    {
        MethodDeclarationSyntax m => $"{Owner(m)}.{m.Identifier.Text}",
        ConstructorDeclarationSyntax c => $"{Owner(c)}..ctor",
        DestructorDeclarationSyntax d => $"{Owner(d)}.~{d.Identifier.Text}",
        OperatorDeclarationSyntax o => $"{Owner(o)}.operator {o.OperatorToken.Text}",
        ConversionOperatorDeclarationSyntax c => $"{Owner(c)}.operator {c.Type}",
        AccessorDeclarationSyntax a when a.Parent?.Parent is BasePropertyDeclarationSyntax p => $"{Owner(p)}.{Member(p)}.{a.Keyword.Text}",
        PropertyDeclarationSyntax { ExpressionBody: not null } p => $"{Owner(p)}.{p.Identifier.Text}.get",
        IndexerDeclarationSyntax { ExpressionBody: not null } i => $"{Owner(i)}.this[].get",
        LocalFunctionStatementSyntax l => $"{Enclosing(l)}.{l.Identifier.Text} (local)",
        _ => null,
    };

    private static string Member(BasePropertyDeclarationSyntax p) => p switch
    {
        PropertyDeclarationSyntax property => property.Identifier.Text,
        EventDeclarationSyntax e => e.Identifier.Text,
        _ => "this[]",
    };

    private static string Owner(SyntaxNode node) =>
        node.Ancestors().OfType<BaseTypeDeclarationSyntax>().FirstOrDefault()?.Identifier.Text ?? "<global>";

    private static string Enclosing(LocalFunctionStatementSyntax local) =>
        local.Ancestors().Select(Name).FirstOrDefault(n => n is not null) ?? TopLevel;

    /// <summary>
    /// Every partial type's declaration in the file, by its full name (namespace and enclosing types), with its lines:
    /// summed over the files a type is split across, they are the type's size, which splitting cannot hide.
    /// </summary>
    public static IEnumerable<(string Type, int Lines)> PartialTypes(string text)
    {
        var root = CSharpSyntaxTree.ParseText(text).GetRoot();
        return root.DescendantNodes().OfType<TypeDeclarationSyntax>()
            .Where(t => t.Modifiers.Any(m => m.IsKind(SyntaxKind.PartialKeyword)))
            .Select(t => (FullName(t), Lines(t)));
    }

    private static string FullName(TypeDeclarationSyntax type)
    {
        var names = type.AncestorsAndSelf().Select(n => n switch
        {
            TypeDeclarationSyntax t => t.Identifier.Text,
            BaseNamespaceDeclarationSyntax ns => ns.Name.ToString(),
            _ => null,
        }).OfType<string>().Reverse();
        return string.Join('.', names);
    }

    private static int Lines(SyntaxNode node) => Lines(node, node);

    private static int Lines(SyntaxNode first, SyntaxNode last)
    {
        var start = first.GetLocation().GetLineSpan().StartLinePosition.Line;
        var end = last.GetLocation().GetLineSpan().EndLinePosition.Line;
        return end - start + 1;
    }

    private static Microsoft.CodeAnalysis.Text.SourceText SourceText(string text) => Microsoft.CodeAnalysis.Text.SourceText.From(text);
}

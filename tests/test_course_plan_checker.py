"""The course-plan check on planted pages: it must fail on a missing and on an invented exercise."""
from course_plan_checker import book_exercises, plan_problems

ROW = '<tr><td><a href="{page}.html#{label}">Exercise</a></td><td>Basic</td></tr>'


def page(rows):
    return "<html><body><article><table>" + "".join(ROW.format(page=p, label=l) for p, l in rows) + "</table></article></body></html>"


def test_the_book_has_52_exercises_in_8_chapters():
    exercises = book_exercises()
    assert len(exercises) == 52 and len({chapter for chapter, _ in exercises}) == 8


def test_a_complete_plan_passes_and_planted_errors_are_named():
    exercises = book_exercises()
    assert plan_problems(page(sorted(exercises)), exercises) == []
    dropped = sorted(exercises)[5]
    problems = plan_problems(page(sorted(exercises - {dropped})), exercises)
    assert problems == [f"exercise {dropped[1]} of {dropped[0]} is missing from the course plan"]
    invented = ("ch02_uniform_mass_binning", "ex-umb-invented")
    problems = plan_problems(page(sorted(exercises | {invented})), exercises)
    assert problems == ["the course plan names ex-umb-invented of ch02_uniform_mass_binning, which does not exist"]
    moved = ("ch03_multiclass_lp", "ex-umb-ties")  # an exercise linked on the wrong chapter's page
    problems = plan_problems(page(sorted(exercises - {("ch02_uniform_mass_binning", "ex-umb-ties")} | {moved})), exercises)
    assert len(problems) == 2

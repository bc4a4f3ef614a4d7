"""The built page Teaching with this book names every exercise of the book and no other."""
from course_plan_checker import book_exercises, plan_problems


def test_the_course_plan_lists_exactly_the_books_exercises(html_root):
    page = (html_root / "book" / "teaching.html").read_text(encoding="utf-8")
    problems = plan_problems(page, book_exercises())
    assert not problems, "\n".join(problems)

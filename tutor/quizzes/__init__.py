"""Quizzes: an assignment whose items are questions, given as a quiz (docs/assignments.md,
"Quizzes"). A student starts an attempt (its questions in an order of its own, frozen at the
start), saves an answer per question, and submits; a time limit ends the attempt on the
server's clock. Answers are read and graded by the questions' own code
(tutor/practice/questions: answers.read_answer, grading.grade, variants); each graded answer
is also kept as a QuestionAnswer of the attempt, so the teacher's views of answers see it.

models.py (QuizAttempt, QuizAnswer), rules.py (plain functions: what feedback a student may
see, when an attempt ends), actions.py (start, save, check, submit: each atomic),
views.py and urls.py (the student's pages), results.py (scores for the teacher's pages),
analysis.py (item analysis).
"""

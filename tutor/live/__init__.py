"""The live view of a class during a lesson: who is on which block, what they last did,
who is stuck, and whose hand is up.

Every learner action the practice kinds record also moves one denormalised row per
(learner, lesson), `LessonActivity` (actions.record, called in the same transaction as
the action), so the teacher's page, polled every few seconds, reads the class in one
query whatever its size. Hands (`RaisedHand`) and each class's stuck rules
(`LiveSettings`) live here too.
"""

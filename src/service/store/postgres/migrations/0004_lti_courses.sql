-- The LTI course (the launch's `context` claim id) a launch context was last opened from: the
-- teachers' dashboard of a course shows the submissions made from its contexts only.
ALTER TABLE lti_contexts ADD COLUMN course TEXT NOT NULL DEFAULT '';
CREATE INDEX lti_contexts_course ON lti_contexts (platform_id, course);
